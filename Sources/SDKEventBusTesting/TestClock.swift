import SDKEventBus

/// A clock that moves only when a test advances it, so that backoff, refreshes, deadlines and
/// timeouts run instantly and deterministically.
///
/// Pass it as the clock of the code under test, then await the code's sleeps instead of polling:
///
/// ```swift
/// let clock = TestClock()
/// var settings = SDKConfiguration()
/// settings.clock = clock
/// let sdk = SDKClient(configuration: settings, fetchService: service)
///
/// await clock.waitForSleepers(1)           // the lifecycle is sleeping until its next refresh
/// let slept = await clock.advanceToNextDeadline()
/// #expect(slept == .seconds(300))
/// ```
///
/// Sleepers whose deadline has come are woken in deadline order. A sleeping task that is cancelled
/// wakes with `CancellationError` and is forgotten.
public final class TestClock: Clock, Sendable {
    /// A point in the test clock's time: how far it is from the clock's start.
    public struct Instant: InstantProtocol {
        /// How far this instant is from the clock's start.
        public var offset: Duration

        /// Creates an instant at `offset` from the clock's start.
        ///
        /// - Parameter offset: How far the instant is from the clock's start.
        public init(offset: Duration) {
            self.offset = offset
        }

        /// The instant `duration` later.
        ///
        /// - Parameter duration: How much later.
        /// - Returns: The later instant.
        public func advanced(by duration: Duration) -> Instant { Instant(offset: offset + duration) }

        /// The duration from this instant to `other`.
        ///
        /// - Parameter other: The other instant.
        /// - Returns: How long from this instant to `other`.
        public func duration(to other: Instant) -> Duration { other.offset - offset }

        /// Whether `lhs` comes before `rhs`.
        public static func < (lhs: Instant, rhs: Instant) -> Bool { lhs.offset < rhs.offset }
    }

    private struct Sleeper {
        let deadline: Instant
        let continuation: CheckedContinuation<Void, any Error>
    }

    private struct State {
        var now = Instant(offset: .zero)
        var sleepers: [UInt64: Sleeper] = [:]
        var cancelledEarly: Set<UInt64> = []
        var nextID: UInt64 = 0
        var sleeperWatchers: [(count: Int, continuation: CheckedContinuation<Void, Never>)] = []
        var history: [Duration] = []

        /// The watchers satisfied by the sleepers now.
        mutating func takeSatisfiedWatchers() -> [CheckedContinuation<Void, Never>] {
            let count = sleepers.count
            let satisfied = sleeperWatchers.filter { $0.count <= count }.map(\.continuation)
            sleeperWatchers.removeAll { $0.count <= count }
            return satisfied
        }
    }

    private let state = LockedValue(State())

    /// Creates a clock at its start.
    public init() {}

    /// The current instant; it moves only when the test advances the clock.
    public var now: Instant { state.withLock { $0.now } }

    /// The clock's resolution: none, every duration is exact.
    public var minimumResolution: Duration { .zero }

    /// How many tasks are sleeping on the clock now.
    public var sleeperCount: Int { state.withLock { $0.sleepers.count } }

    /// Every duration a task asked to sleep for, in the order they asked.
    public var history: [Duration] { state.withLock { $0.history } }

    /// Suspends until the clock reaches `deadline`: until a test advances it there.
    ///
    /// - Parameters:
    ///   - deadline: When to wake.
    ///   - tolerance: Ignored.
    /// - Throws: `CancellationError` when the sleeping task is cancelled.
    public func sleep(until deadline: Instant, tolerance: Duration? = nil) async throws {
        try Task.checkCancellation()
        let id = state.withLock { state in
            defer { state.nextID += 1 }
            return state.nextID
        }
        try await withTaskCancellationHandler {
            try await withCheckedThrowingContinuation { (continuation: CheckedContinuation<Void, any Error>) in
                let (resume, watchers) = state.withLock {
                    state -> (Result<Void, any Error>?, [CheckedContinuation<Void, Never>]) in
                    if state.cancelledEarly.remove(id) != nil { return (.failure(CancellationError()), []) }
                    state.history.append(state.now.duration(to: deadline))
                    if deadline <= state.now { return (.success(()), []) }
                    state.sleepers[id] = Sleeper(deadline: deadline, continuation: continuation)
                    return (nil, state.takeSatisfiedWatchers())
                }
                if let resume { continuation.resume(with: resume) }
                for watcher in watchers { watcher.resume() }
            }
        } onCancel: {
            let sleeper = state.withLock { state in
                guard let sleeper = state.sleepers.removeValue(forKey: id) else {
                    state.cancelledEarly.insert(id)
                    return Sleeper?.none
                }
                return sleeper
            }
            sleeper?.continuation.resume(throwing: CancellationError())
        }
    }

    /// Moves time forward and wakes every sleeper whose deadline has come, earliest first.
    ///
    /// - Parameter duration: How far to move.
    public func advance(by duration: Duration) {
        advance(to: now.advanced(by: duration))
    }

    /// Moves time to `instant` (if it is later) and wakes every sleeper whose deadline has come,
    /// earliest first.
    ///
    /// - Parameter instant: Where to move.
    public func advance(to instant: Instant) {
        let due = state.withLock { state in
            state.now = max(state.now, instant)
            let now = state.now
            let due = state.sleepers.filter { $0.value.deadline <= now }.sorted {
                ($0.value.deadline, $0.key) < ($1.value.deadline, $1.key)
            }
            for (id, _) in due { state.sleepers[id] = nil }
            return due.map(\.value.continuation)
        }
        for continuation in due { continuation.resume() }
    }

    /// Returns once at least `count` tasks are sleeping on the clock: the hook that replaces
    /// polling a sleeper count.
    ///
    /// - Parameter count: How many sleepers to wait for.
    public func waitForSleepers(_ count: Int = 1) async {
        await withCheckedContinuation { (continuation: CheckedContinuation<Void, Never>) in
            let now = state.withLock { state -> Bool in
                guard state.sleepers.count < count else { return true }
                state.sleeperWatchers.append((count, continuation))
                return false
            }
            if now { continuation.resume() }
        }
    }

    /// Waits until a task sleeps, and returns how long until the earliest sleeper wakes.
    ///
    /// - Returns: The time from now to the earliest deadline.
    public func nextDeadline() async -> Duration {
        await waitForSleepers(1)
        return state.withLock { state in
            state.sleepers.values.map { state.now.duration(to: $0.deadline) }.min() ?? .zero
        }
    }

    /// Advances to the earliest sleeper's deadline, once one is sleeping.
    ///
    /// - Returns: How far time moved.
    @discardableResult
    public func advanceToNextDeadline() async -> Duration {
        let delay = await nextDeadline()
        advance(by: delay)
        return delay
    }
}
