import SDKEventBusCore
internal import _SDKEventBusAtomics

/// What an app bus is to the containers that register it and to its all-events feeds: the scope
/// it serves, whether it was released, and how many feeds are open.
///
/// Changes take a lock (they are rare: a feed opens or ends, a container registers or releases the
/// bus); the two facts the hot paths need are published in one word read without it: a publish
/// reads whether a feed is open (it reads the clock only then), and a subscription reads whether
/// the bus was released.
final class AppBusStatus: @unchecked Sendable {
    // @unchecked: `state` is reached only through its lock, and `word` only through the atomic
    // operations below, and written only under that lock.

    /// Where the bus stands with the containers.
    enum Membership: Sendable {
        /// No container holds it: a bus made with `AppEventBus()`, or one whose container went
        /// away without releasing it.
        case free
        /// A container holds it for the scope of this description.
        case registered(scope: String)
        /// A container is releasing it from the scope of this description: removed from the
        /// container, its subscriptions being ended.
        case releasing(scope: String)
        /// Released from its scope, and registered nowhere since.
        case released
    }

    /// What claiming the bus for a scope found.
    enum Claim: Sendable {
        /// The bus now serves the scope; `previous` is what it was, for ``unclaim(restoring:)``.
        case claimed(previous: Membership)
        /// The bus serves the scope of this description already (or is being released from it).
        case taken(scope: String)
    }

    private struct State: Sendable {
        var membership: Membership
        var openFeeds = 0
    }

    private static let feedBit: UInt32 = 1
    private static let releasedBit: UInt32 = 2

    private let state: LockedValue<State>
    private let word = UnsafeMutablePointer<UInt32>.allocate(capacity: 1)

    /// Creates the status of a free bus, without a feed.
    init() {
        state = LockedValue(State(membership: .free))
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

    /// Whether the bus was released from its scope (or is being released) and registered nowhere
    /// since: a subscription made now ends at once.
    var isReleased: Bool {
        sdk_event_bus_load_acquire_32(word) & Self.releasedBit != 0
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

    // MARK: Containers

    /// Where the bus stands now: for tests and diagnostics.
    var membership: Membership {
        state.withLock { $0.membership }
    }

    /// Makes the bus serve `scope`, unless it serves a scope already (in any container).
    func claim(for scope: String) -> Claim {
        state.withLock { state in
            switch state.membership {
            case .registered(let other), .releasing(let other):
                return .taken(scope: other)
            case .free, .released:
                let previous = state.membership
                state.membership = .registered(scope: scope)
                publish(state)
                return .claimed(previous: previous)
            }
        }
    }

    /// Undoes a ``claim(for:)`` whose registration did not happen.
    func unclaim(restoring previous: Membership) {
        state.withLock { state in
            state.membership = previous
            publish(state)
        }
    }

    /// Marks the bus as being released from its scope, before its subscriptions are ended: from
    /// now on a subscription made on it ends at once.
    func releasing() {
        state.withLock { state in
            if case .registered(let scope) = state.membership { state.membership = .releasing(scope: scope) }
            publish(state)
        }
    }

    /// Marks the bus as released, once its subscriptions were ended.
    func released() {
        state.withLock { state in
            if case .releasing = state.membership { state.membership = .released }
            publish(state)
        }
    }

    /// Frees a bus whose container went away without releasing it: it may be registered again.
    func freed() {
        state.withLock { state in
            if case .registered = state.membership { state.membership = .free }
            publish(state)
        }
    }

    /// Publishes what the hot paths read: under the lock, so that the word follows the state's
    /// order of changes.
    private func publish(_ state: State) {
        var bits: UInt32 = 0
        if state.openFeeds > 0 { bits |= Self.feedBit }
        switch state.membership {
        case .releasing, .released: bits |= Self.releasedBit
        case .free, .registered: break
        }
        sdk_event_bus_store_release_32(word, bits)
    }
}
