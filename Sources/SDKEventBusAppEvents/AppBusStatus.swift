import SDKEventBusCore
internal import _SDKEventBusAtomics

/// What an app bus is to its all-events feeds: how many are open.
///
/// Changes take a lock (they are rare: a feed opens or ends); the fact the hot path needs is
/// published in one word read without it: a publish reads whether a feed is open, and reads the
/// clock only then.
final class AppBusStatus: @unchecked Sendable {
    // @unchecked: `state` is reached only through its lock, and `word` only through the atomic
    // operations below, and written only under that lock.

    private struct State: Sendable {
        var openFeeds = 0
    }

    private static let feedBit: UInt32 = 1

    private let state: LockedValue<State>
    private let word = UnsafeMutablePointer<UInt32>.allocate(capacity: 1)

    /// Creates the status of a bus without a feed.
    init() {
        state = LockedValue(State())
        word.initialize(to: 0)
    }

    deinit {
        word.deallocate()
    }

    // MARK: Read without the lock

    /// Whether an all-events feed is open: a publish reads the clock only then.
    var hasOpenFeed: Bool {
        sdk_event_bus_load_acquire_32(word) & Self.feedBit != 0
    }

    // MARK: All-events feeds

    /// Counts a feed that is opening: publishes read the clock from now on.
    func feedOpened() {
        state.withLock { state in
            state.openFeeds += 1
            publish(state)
        }
    }

    /// Counts a feed that ended: once the last one has, publishes stop reading the clock.
    func feedEnded() {
        state.withLock { state in
            state.openFeeds -= 1
            publish(state)
        }
    }

    /// The number of feeds open: for tests.
    var openFeeds: Int {
        state.withLock { $0.openFeeds }
    }

    /// Publishes what the hot path reads: under the lock, so that the word follows the state's
    /// order of changes.
    private func publish(_ state: State) {
        var bits: UInt32 = 0
        if state.openFeeds > 0 { bits |= Self.feedBit }
        sdk_event_bus_store_release_32(word, bits)
    }
}
