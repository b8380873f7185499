import Foundation

/// The transitions of a `ConfigLifecycle`'s schedule: when the loop fetches, and who waits for it.
///
/// Plain synchronous state, generic over the loop's waiter and a `refreshNow()` caller's, so that
/// tests drive every interleaving without tasks. Every method returns what must happen to waiters;
/// the caller does it after releasing its lock. The waiters it holds are boxed (``Boxed``), so that
/// its layout does not depend on them and its value witnesses stay small.
///
/// The loop waits for its next fetch in two calls: ``beginWait(isDue:pausable:)`` says what the
/// schedule is (the deadline has passed; whether low power mode may hold this wait), and
/// ``park(_:)`` decides *and* parks in one step, from everything that happened since: a refresh
/// asked for, the deadline passing (``deadlinePassed(_:)``), the pause starting or ending, the
/// loop's task cancelled. So an event can never fall between deciding and parking and be lost: it
/// either finds the loop parked and wakes it with the decision already made, or is a flag the
/// park reads.
///
/// ```
///              beginWait            park: fetch now?
///   running ──────────────▶ waiting ───────────────▶ fetching ── finishFetch ──▶ running
///                             │  no: parked ▲  │
///                             │             │  └─ trigger / deadline / pause ends: fetching
///                             └─ cancelled: stopped (every later park too)
/// ```
///
/// Low power mode (``setPaused(_:)``) holds only a wait that the loop began as `pausable`: a
/// periodic refresh or a retry once the SDK is ready. A refresh asked for runs anyway, and a
/// deadline that passed while paused makes the loop fetch as soon as the pause ends.
struct LifecycleStateMachine<LoopWaiter, RefreshWaiter> {
    typealias LoopWake = LifecycleLoopWake

    /// What a `refreshNow()` caller that registers must do.
    enum RefreshRegistration {
        /// Wait for the fetch; wake the loop with ``LoopWake/fetch`` when there is one to wake (boxed,
        /// so that this enum's layout does not depend on the waiter's type).
        case wait(wakeLoop: Boxed<LoopWaiter>?)
        /// Resume at once with this result: the lifecycle stopped, or the caller was cancelled.
        case resume(Result<ConfigChange, any Error>)
    }

    fileprivate enum Refresh {
        /// An id handed out to a caller that has not registered yet.
        case reserved
        /// Cancelled before it registered: the registration resumes at once.
        case cancelledEarly
        /// Waiting for fetch number `fetch` (see ``fetchCount``) to end.
        case waiting(Boxed<RefreshWaiter>, fetch: UInt64)
    }

    fileprivate enum Loop {
        /// Running: between waits, or fetching.
        case running
        /// Suspended until ``LoopWake``.
        case parked(Boxed<LoopWaiter>)
        /// Its task was cancelled: every park returns ``LoopWake/stop``.
        case cancelled
    }

    private(set) var hasStarted = false
    private(set) var isStopped = false
    private(set) var isFetching = false
    /// How many fetches have begun: the number of the fetch in flight, or of the last one.
    private var fetchCount: UInt64 = 0
    /// Low power mode is on.
    private(set) var isPaused = false
    /// The SDK paused periodic refreshes.
    private(set) var isPausedBySDK = false
    /// A refresh was asked for and has not begun.
    private(set) var isTriggered = false
    /// The current wait's deadline has passed.
    private(set) var isDue = false
    /// Whether low power mode may hold the current wait.
    private var isPausable = false
    /// Which wait a deadline belongs to, so that a timer of an earlier wait changes nothing.
    private var waitID: UInt64 = 0
    private var loop = Loop.running
    private var refreshes: [UInt64: Refresh] = [:]
    private var nextRefreshID: UInt64 = 0
    /// When the last fetch succeeded, as time on the lifecycle's clock since it started, in seconds.
    private(set) var lastSuccessfulFetchTime: TimeInterval?
    /// Why the loop ended, when not by shutdown: the error that ended readiness.
    var stopReason: (any Error)?

    /// The refresh ids that await their caller or their fetch: callers in flight, never more.
    var refreshBookkeepingCount: Int { refreshes.count }

    /// Whether the loop is parked.
    var isParked: Bool {
        if case .parked = loop { return true }
        return false
    }

    /// Whether the loop was told to stop (its task cancelled, or readiness failed): a fetch that
    /// returns then is discarded.
    var isLoopCancelled: Bool {
        if case .cancelled = loop { return true }
        return false
    }

    /// What refresh callers get once stopped: the error that ended readiness, or shutdown.
    var stopError: any Error { stopReason ?? ReadinessError.shutDown }

    // MARK: Running

    /// Starts; returns `false` when it had started already.
    mutating func start() -> Bool {
        guard !hasStarted else { return false }
        hasStarted = true
        return true
    }

    /// Stops for good; returns the refresh callers to fail, and the error to fail them with.
    mutating func stop() -> (waiters: [RefreshWaiter], error: any Error) {
        isStopped = true
        return (takeRefreshWaiters(upTo: .max), stopError)
    }

    // MARK: The loop's wait

    /// Begins the wait for the next fetch.
    ///
    /// - Parameters:
    ///   - isDue: Whether the deadline has passed already (the first fetch's has).
    ///   - pausable: Whether low power mode may hold this wait.
    /// - Returns: The wait's id, for ``deadlinePassed(_:)``.
    mutating func beginWait(isDue: Bool, pausable: Bool) -> UInt64 {
        waitID += 1
        self.isDue = isDue
        isPausable = pausable
        return waitID
    }

    /// Parks the loop, or tells it to fetch or stop at once: the decision and the parking are one
    /// step.
    ///
    /// - Returns: What the loop does now; `nil` when it parked.
    mutating func park(_ waiter: LoopWaiter) -> LoopWake? {
        switch loop {
        case .cancelled:
            return .stop
        case .parked:
            preconditionFailure("the lifecycle has one loop")
        case .running:
            if shouldFetch {
                beginFetch()
                return .fetch
            }
            loop = .parked(Boxed(waiter))
            return nil
        }
    }

    /// The loop's task was cancelled.
    ///
    /// - Returns: The parked loop, to resume with ``LoopWake/stop``.
    mutating func cancelLoop() -> LoopWaiter? {
        defer { loop = .cancelled }
        if case .parked(let waiter) = loop { return waiter.value }
        return nil
    }

    /// The deadline of wait `id` passed.
    ///
    /// - Returns: The parked loop, to resume with ``LoopWake/fetch`` (the fetch has begun), and
    ///   whether a pause holds the fetch that fell due.
    mutating func deadlinePassed(_ id: UInt64) -> (wake: LoopWaiter?, held: Bool) {
        guard id == waitID else { return (nil, false) }
        isDue = true
        return (wakeToFetch(), isHeld && !isTriggered)
    }

    /// A successful fetch's configuration arrived at `time`, and is about to be applied: from now
    /// on its age counts, and reading it when stale asks for the next fetch, even before
    /// ``finishFetch(succeededAt:)``: applying it resumes `ready()` callers, who may read it at once.
    mutating func fetchArrived(at time: TimeInterval?) {
        isFetching = false
        if let time { lastSuccessfulFetchTime = time }
    }

    /// Ends a fetch; returns the refresh callers waiting for it.
    mutating func finishFetch(succeededAt time: TimeInterval?) -> [RefreshWaiter] {
        isFetching = false
        if let time { lastSuccessfulFetchTime = time }
        return takeRefreshWaiters(upTo: fetchCount)
    }

    /// Whether a pause holds the current wait.
    private var isHeld: Bool { (isPaused || isPausedBySDK) && isPausable }

    private var shouldFetch: Bool {
        isTriggered || (isDue && !isHeld)
    }

    private mutating func beginFetch() {
        isTriggered = false
        isDue = false
        isFetching = true
        fetchCount += 1
        waitID += 1  // a timer of this wait that fires late changes nothing
        loop = .running
    }

    /// Takes the parked loop to fetch, when it should now.
    private mutating func wakeToFetch() -> LoopWaiter? {
        wakeLoopToFetch()?.value
    }

    /// ``wakeToFetch()``, keeping the loop's waiter in its box.
    private mutating func wakeLoopToFetch() -> Boxed<LoopWaiter>? {
        guard case .parked(let waiter) = loop, shouldFetch else { return nil }
        beginFetch()
        return waiter
    }

    // MARK: Low power mode and staleness

    /// Low power mode turned on or off.
    ///
    /// - Returns: Whether it changed, and the parked loop to resume with ``LoopWake/fetch`` (a
    ///   deadline passed while it was on).
    mutating func setPaused(_ paused: Bool) -> (changed: Bool, wake: LoopWaiter?) {
        guard isPaused != paused else { return (false, nil) }
        isPaused = paused
        return (true, wakeToFetch())
    }

    /// The SDK paused periodic refreshes, or resumed them: as low power mode, independently of it.
    ///
    /// - Returns: Whether it changed, and the parked loop to resume with ``LoopWake/fetch``.
    mutating func setPausedBySDK(_ paused: Bool) -> (changed: Bool, wake: LoopWaiter?) {
        guard isPausedBySDK != paused else { return (false, nil) }
        isPausedBySDK = paused
        return (true, wakeToFetch())
    }

    /// What asking for a fetch of a stale configuration did.
    enum StaleCheck {
        /// The configuration is stale: a fetch was asked for; resume the loop, if given, with
        /// ``LoopWake/fetch``.
        case triggered(wake: Boxed<LoopWaiter>?)
        /// The configuration is `age` seconds old, still fresh.
        case fresh(age: TimeInterval)
        /// Nothing to check: stopped, a fetch is in flight or asked for, or none succeeded yet.
        case notChecked
    }

    /// Asks for a fetch when the last successful one is older than `timeToLive` at `now`.
    mutating func triggerIfStale(timeToLive: TimeInterval, now: TimeInterval?) -> StaleCheck {
        guard !isStopped, !isFetching, !isTriggered, let last = lastSuccessfulFetchTime, let now else {
            return .notChecked
        }
        guard now - last >= timeToLive else { return .fresh(age: max(0, now - last)) }
        isTriggered = true
        return .triggered(wake: wakeLoopToFetch())
    }

    // MARK: refreshNow() callers

    /// Hands out an id to a `refreshNow()` caller, before it registers.
    mutating func makeRefreshID() -> UInt64 {
        defer { nextRefreshID += 1 }
        refreshes[nextRefreshID] = .reserved
        return nextRefreshID
    }

    /// Registers a `refreshNow()` caller: it joins the fetch in flight, or asks for one.
    mutating func addRefreshWaiter(_ id: UInt64, _ waiter: RefreshWaiter) -> RefreshRegistration {
        let reservation = refreshes.removeValue(forKey: id)
        if isStopped { return .resume(.failure(stopError)) }
        if case .cancelledEarly = reservation { return .resume(.failure(CancellationError())) }
        // The fetch in flight, or the next one, which this call asks for: a fetch whose
        // configuration has arrived is not in flight any more (see `fetchArrived`).
        refreshes[id] = .waiting(Boxed(waiter), fetch: isFetching ? fetchCount : fetchCount + 1)
        if isFetching { return .wait(wakeLoop: nil) }
        isTriggered = true
        return .wait(wakeLoop: wakeLoopToFetch())
    }

    /// A `refreshNow()` caller was cancelled.
    ///
    /// - Returns: The caller to resume with `CancellationError`, if it is waiting. A cancellation
    ///   before it registers is remembered for its registration; one after it was resumed is
    ///   forgotten.
    mutating func cancelRefreshWaiter(_ id: UInt64) -> RefreshWaiter? {
        switch refreshes[id] {
        case .waiting(let waiter, _):
            refreshes[id] = nil
            return waiter.value
        case .reserved:
            refreshes[id] = .cancelledEarly
            return nil
        case .cancelledEarly, nil:
            return nil
        }
    }

    /// Takes the callers waiting for fetch `last` or an earlier one; those waiting for a later fetch,
    /// and ids handed out but not registered yet, stay.
    private mutating func takeRefreshWaiters(upTo last: UInt64) -> [RefreshWaiter] {
        var waiters: [RefreshWaiter] = []
        var taken: [UInt64] = []
        for (id, refresh) in refreshes {
            guard case .waiting(let waiter, let fetch) = refresh, fetch <= last else { continue }
            waiters.append(waiter.value)
            taken.append(id)
        }
        for id in taken { refreshes[id] = nil }
        return waiters
    }
}

extension LifecycleStateMachine: Sendable where LoopWaiter: Sendable, RefreshWaiter: Sendable {}
extension LifecycleStateMachine.Refresh: Sendable where RefreshWaiter: Sendable {}
extension LifecycleStateMachine.Loop: Sendable where LoopWaiter: Sendable {}
