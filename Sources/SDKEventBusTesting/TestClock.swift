public import Foundation
@_spi(Testing) public import SDKEventBusConfig
import SDKEventBusCoreTesting

/// A clock that moves only when a test advances it, so that backoff, refreshes, deadlines and
/// timeouts run instantly and deterministically.
///
/// Give it to the code under test — a lifecycle's configuration
/// (``/SDKEventBusConfig/LifecycleConfiguration/clock``), a timed `ready(timeout:clock:)`, a
/// scripted fetch service — then await the code's sleeps instead of polling:
///
/// ```swift
/// let clock = TestClock()
/// var settings = SDKConfiguration()
/// settings.clock = clock
/// let sdk = SDKClient(configuration: settings, fetchService: service)
///
/// try await clock.waitForSleepers(1)           // the lifecycle is sleeping until its next refresh
/// let slept = try await clock.advanceToNextDeadline()
/// #expect(slept == 300)
/// ```
///
/// Time is in seconds (`TimeInterval`) from the clock's start, and kept exactly in nanoseconds, so
/// that `advance(by: 0.15)` after `advance(by: 300)` leaves a deadline exactly `0.15` away. It works
/// at every platform the package supports: it is a ``/SDKEventBusConfig/LifecycleClock``, as an
/// SDK's own clock is, and every timer of the package runs on it.
///
/// Sleepers whose deadline has come are woken in deadline order. A sleeping task that is cancelled
/// wakes with `CancellationError` and is forgotten, whenever the cancellation lands.
///
/// Every wait (``waitForSleepers(_:within:)``, ``timeUntilNextDeadline(within:)``,
/// ``advanceToNextDeadline(within:)``) is bounded in real time and throws
/// ``/documentation/SDKEventBusCoreTesting/WaitTimeoutError`` saying how many tasks it saw sleeping, so a test whose
/// code never sleeps fails instead of hanging.
public final class TestClock: Sendable {
    private struct Sleeper {
        let deadline: UInt64
        let continuation: CheckedContinuation<Void, any Error>
    }

    private struct State {
        /// Nanoseconds since the clock's start.
        var now: UInt64 = 0
        var sleepers: [UInt64: Sleeper] = [:]
        /// Sleeps not registered yet, each with whether its task was cancelled meanwhile.
        ///
        /// An entry lives only until its sleep registers, so a cancellation that lands after the
        /// sleeper was woken leaves nothing behind.
        var registering: [UInt64: Bool] = [:]
        var nextID: UInt64 = 0
        /// Callers of ``waitForSleepers(_:within:)``, each with the count it waits for.
        var sleeperWaiters = BoundedWaiters<Int>()
        /// How long each sleep asked for, in nanoseconds.
        var history: [UInt64] = []

        /// The waiters satisfied by the sleepers now.
        mutating func takeSatisfiedWaiters() -> [CheckedContinuation<Void, any Error>] {
            let count = sleepers.count
            return sleeperWaiters.takeAll { $0 <= count }
        }
    }

    private let state = LockedValue(State())

    /// Creates a clock at its start.
    public init() {}

    /// How far the clock is from its start, in seconds; it moves only when the test advances it.
    public var now: TimeInterval { TimeUnits.seconds(inNanoseconds: state.withLock { $0.now }) }

    /// How many tasks are sleeping on the clock now.
    public var sleeperCount: Int { state.withLock { $0.sleepers.count } }

    /// How long each task asked to sleep, in seconds, in the order they asked.
    public var history: [TimeInterval] { state.withLock { $0.history }.map(TimeUnits.seconds(inNanoseconds:)) }

    /// How many entries the clock keeps for sleeps and waits in progress.
    ///
    /// Sleepers, sleeps not yet registered, and waiters: zero once nothing sleeps or waits, however
    /// those ended.
    package var bookkeepingCount: Int {
        state.withLock { $0.sleepers.count + $0.registering.count + $0.sleeperWaiters.count }
    }

    /// Suspends until the clock reaches `deadline`: until a test advances it there.
    ///
    /// - Parameter deadline: When to wake, in seconds from the clock's start.
    /// - Throws: `CancellationError` when the sleeping task is cancelled.
    public func sleep(until deadline: TimeInterval) async throws {
        try await sleep(untilNanoseconds: TimeUnits.nanoseconds(in: deadline))
    }

    /// Moves time forward and wakes every sleeper whose deadline has come, earliest first.
    ///
    /// - Parameter interval: How far to move, in seconds.
    public func advance(by interval: TimeInterval) {
        advance(toNanoseconds: state.withLock { $0.now } &+ TimeUnits.nanoseconds(in: interval))
    }

    /// Moves time to `instant` (if it is later) and wakes every sleeper whose deadline has come,
    /// earliest first.
    ///
    /// - Parameter instant: Where to move, in seconds from the clock's start.
    public func advance(to instant: TimeInterval) {
        advance(toNanoseconds: TimeUnits.nanoseconds(in: instant))
    }

    private func advance(toNanoseconds instant: UInt64) {
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
    ///   - timeout: How long to wait at most, in seconds of real time: the clock itself moves only
    ///     when the test advances it, which the test cannot do while it waits here.
    /// - Throws: ``/documentation/SDKEventBusCoreTesting/WaitTimeoutError`` when fewer tasks sleep when the bound
    ///   passes; `CancellationError` when the task is cancelled first.
    public func waitForSleepers(_ count: Int = 1, within timeout: TimeInterval = WaitTimeoutError.defaultTimeout)
        async throws
    {
        try await state.wait(on: \.sleeperWaiters, for: count, within: timeout) {
            $0.sleepers.count >= count
        } timeoutError: {
            WaitTimeoutError(
                expected: "\(count) task(s) to sleep on the test clock",
                observed: "\($0.sleepers.count) sleeping at \(TimeUnits.seconds(inNanoseconds: $0.now)) seconds",
                timeout: timeout
            )
        }
    }

    /// Waits until a task sleeps, and returns how long until the earliest sleeper wakes.
    ///
    /// - Parameter timeout: How long to wait for a sleeper at most, in seconds of real time.
    /// - Returns: The time from now to the earliest deadline, in seconds.
    /// - Throws: ``/documentation/SDKEventBusCoreTesting/WaitTimeoutError`` when no task sleeps when the bound passes;
    ///   `CancellationError` when the task is cancelled first.
    public func timeUntilNextDeadline(within timeout: TimeInterval = WaitTimeoutError.defaultTimeout) async throws
        -> TimeInterval
    {
        try await waitForSleepers(1, within: timeout)
        return TimeUnits.seconds(inNanoseconds: nanosecondsToNextDeadline())
    }

    /// Advances to the earliest sleeper's deadline, once one is sleeping.
    ///
    /// - Parameter timeout: How long to wait for a sleeper at most, in seconds of real time.
    /// - Returns: How far time moved, in seconds.
    /// - Throws: ``/documentation/SDKEventBusCoreTesting/WaitTimeoutError`` when no task sleeps when the bound passes;
    ///   `CancellationError` when the task is cancelled first. The clock does not move then.
    @discardableResult
    public func advanceToNextDeadline(within timeout: TimeInterval = WaitTimeoutError.defaultTimeout) async throws
        -> TimeInterval
    {
        try await waitForSleepers(1, within: timeout)
        let delay = nanosecondsToNextDeadline()
        advance(toNanoseconds: state.withLock { $0.now } &+ delay)
        return TimeUnits.seconds(inNanoseconds: delay)
    }

    private func nanosecondsToNextDeadline() -> UInt64 {
        state.withLock { state in
            state.sleepers.values.map { $0.deadline > state.now ? $0.deadline - state.now : 0 }.min() ?? 0
        }
    }
}

// Public: any lifecycle, timed wait or scripted service runs on it.
extension TestClock: LifecycleClock {}

// Test SPI: the lifecycle reads the clock in exact nanoseconds, so a deadline it is advanced to is
// exactly the one a timer set.
@_spi(Testing) extension TestClock: TimerClock {
    /// Nanoseconds since the clock's start.
    @_spi(Testing) public var nanoseconds: UInt64 { state.withLock { $0.now } }

    /// Suspends until a test advances the clock to `deadline`.
    ///
    /// - Parameter deadline: When to wake, in nanoseconds since the clock's start.
    /// - Throws: `CancellationError` when the sleeping task is cancelled.
    @_spi(Testing) public func sleep(untilNanoseconds deadline: UInt64) async throws {
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
                    state.history.append(deadline > state.now ? deadline - state.now : 0)
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
}
