import SDKEventBusCore

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
/// try await clock.waitForSleepers(1)           // the lifecycle is sleeping until its next refresh
/// let slept = try await clock.advanceToNextDeadline()
/// #expect(slept == .seconds(300))
/// ```
///
/// Sleepers whose deadline has come are woken in deadline order. A sleeping task that is cancelled
/// wakes with `CancellationError` and is forgotten, whenever the cancellation lands.
///
/// Every wait (``waitForSleepers(_:within:)``, ``nextDeadline(within:)``,
/// ``advanceToNextDeadline(within:)``) is bounded in real time and throws ``WaitTimeoutError`` saying
/// how many tasks it saw sleeping, so a test whose code never sleeps fails instead of hanging.
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
        /// Sleeps not registered yet, each with whether its task was cancelled meanwhile.
        ///
        /// An entry lives only until its sleep registers, so a cancellation that lands after the
        /// sleeper was woken leaves nothing behind.
        var registering: [UInt64: Bool] = [:]
        var nextID: UInt64 = 0
        /// Callers of ``waitForSleepers(_:within:)``, each with the count it waits for.
        var sleeperWaiters = BoundedWaiters<Int>()
        var history: [Duration] = []

        /// The waiters satisfied by the sleepers now.
        mutating func takeSatisfiedWaiters() -> [CheckedContinuation<Void, any Error>] {
            let count = sleepers.count
            return sleeperWaiters.takeAll { $0 <= count }
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

    /// How many entries the clock keeps for sleeps and waits in progress.
    ///
    /// Sleepers, sleeps not yet registered, and waiters: zero once nothing sleeps or waits, however
    /// those ended.
    package var bookkeepingCount: Int {
        state.withLock { $0.sleepers.count + $0.registering.count + $0.sleeperWaiters.count }
    }

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
            state.registering[state.nextID] = false
            return state.nextID
        }
        try await withTaskCancellationHandler {
            try await withCheckedThrowingContinuation { (continuation: CheckedContinuation<Void, any Error>) in
                let (resume, waiters) = state.withLock {
                    state -> (Result<Void, any Error>?, [CheckedContinuation<Void, any Error>]) in
                    if state.registering.removeValue(forKey: id) == true { return (.failure(CancellationError()), []) }
                    state.history.append(state.now.duration(to: deadline))
                    if deadline <= state.now { return (.success(()), []) }
                    state.sleepers[id] = Sleeper(deadline: deadline, continuation: continuation)
                    return (nil, state.takeSatisfiedWaiters())
                }
                if let resume { continuation.resume(with: resume) }
                for waiter in waiters { waiter.resume() }
            }
        } onCancel: {
            let sleeper = state.withLock { state -> Sleeper? in
                if let sleeper = state.sleepers.removeValue(forKey: id) { return sleeper }
                // Not registered yet: its registration throws. Already woken: nothing to do.
                if state.registering[id] != nil { state.registering[id] = true }
                return nil
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
    /// - Parameters:
    ///   - count: How many sleepers to wait for.
    ///   - timeout: How long to wait at most, in real time: the clock itself moves only when the
    ///     test advances it, which the test cannot do while it waits here.
    /// - Throws: ``WaitTimeoutError`` when fewer tasks sleep when the bound passes;
    ///   `CancellationError` when the task is cancelled first.
    public func waitForSleepers(_ count: Int = 1, within timeout: Duration = WaitTimeoutError.defaultTimeout)
        async throws
    {
        try await state.wait(on: \.sleeperWaiters, for: count, within: timeout) {
            $0.sleepers.count >= count
        } timeoutError: {
            WaitTimeoutError(
                expected: "\(count) task(s) to sleep on the test clock",
                observed: "\($0.sleepers.count) sleeping at \($0.now.offset)",
                timeout: timeout
            )
        }
    }

    /// Waits until a task sleeps, and returns how long until the earliest sleeper wakes.
    ///
    /// - Parameter timeout: How long to wait for a sleeper at most, in real time.
    /// - Returns: The time from now to the earliest deadline.
    /// - Throws: ``WaitTimeoutError`` when no task sleeps when the bound passes; `CancellationError`
    ///   when the task is cancelled first.
    public func nextDeadline(within timeout: Duration = WaitTimeoutError.defaultTimeout) async throws -> Duration {
        try await waitForSleepers(1, within: timeout)
        return state.withLock { state in
            state.sleepers.values.map { state.now.duration(to: $0.deadline) }.min() ?? .zero
        }
    }

    /// Advances to the earliest sleeper's deadline, once one is sleeping.
    ///
    /// - Parameter timeout: How long to wait for a sleeper at most, in real time.
    /// - Returns: How far time moved.
    /// - Throws: ``WaitTimeoutError`` when no task sleeps when the bound passes; `CancellationError`
    ///   when the task is cancelled first. The clock does not move then.
    @discardableResult
    public func advanceToNextDeadline(within timeout: Duration = WaitTimeoutError.defaultTimeout) async throws
        -> Duration
    {
        let delay = try await nextDeadline(within: timeout)
        advance(by: delay)
        return delay
    }
}
