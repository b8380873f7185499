import Foundation

/// Every decision of a configuration lifecycle: when it fetches, who waits for a fetch, what a pause
/// holds, how long it backs off, when a configuration is stale, and what it reports.
///
/// Plain synchronous state, generic over the loop's waiter and a `refreshNow()` caller's, so that
/// tests drive every interleaving without tasks. Each event (a demand, a request, a timer, a fetch's
/// end, a pause, readiness decided, a configuration committed, a stop) is one method that takes the
/// time on the lifecycle's clock and returns the ``Action``s that follow, which the caller
/// (`ConfigLifecycle`, the shell) performs in order after releasing its lock: it reports steps,
/// wakes its loop, resumes callers, and arms or cancels the one timer. The shell decides nothing.
///
/// ```
///            start        startingConfigsApplied            park: a fetch due?
///   idle ───────────▶ starting ───────────────────▶ running ─────────────────▶ fetching
///                                                   ▲  ▲  │ no: parked, timer armed   │
///                                                   │  │  └─ timer / demand / request  │
///                                                   │  └──── resume, release ─┘      │
///                                                   └──── fetchSucceeded / fetchFailed, endFetch
///   any ── stop ──▶ stopped (every later park, demand and request too)
/// ```
///
/// - A *demand* (``addRefreshWaiter(_:_:now:)``) joins the fetch in flight, or starts one at once:
///   paused or not, backing off or not, before the first fetch or after, while the cache loads too.
/// - A *request* (``requestIfStale(_:now:)``: a stale read, the app in the foreground) is one flag,
///   acted on at the earliest time the schedule allows a fetch that is not a demand: not while a
///   fetch is in flight, not before a pending retry, not while paused, not sooner than
///   ``minimumFetchSpacing`` after the previous fetch.
/// - A pause (low power mode, or the SDK's) holds periodic refreshes, requests and retries once
///   readiness is decided and the lifecycle has fetched; never the first fetch, a retry readiness
///   waits for, or a demand.
/// - A configuration's age counts from when it was fetched, whoever set it
///   (``configCommitted(_:age:now:)``); one of unknown age is stale.
struct LifecycleStateMachine<LoopWaiter, RefreshWaiter> {
    typealias Nanoseconds = UInt64

    /// The shortest time between the end of a fetch and the start of one that is not a demand:
    /// 100 ms, the retry policy's floor, so that no setting and no stream of reads can make the
    /// lifecycle fetch in a loop.
    static var minimumFetchSpacing: Nanoseconds { TimeUnits.nanoseconds(in: RetryPolicy.minimumDelay) }

    /// The lifecycle's settings, in the machine's units.
    struct Settings: Sendable {
        /// How long after a successful fetch the next one is due; `nil`: only demands and requests.
        var refreshInterval: Nanoseconds?
        /// How long a configuration stays fresh; `nil`: it never goes stale.
        var timeToLive: TimeInterval?
        /// Whether the lifecycle fetches as soon as it starts.
        var fetchesOnStart = true
        /// How long to wait after failures.
        var retryPolicy = RetryPolicy()

        /// The settings of `configuration`, clamped as they are used: an interval below the floor,
        /// a negative time to live or one that is not a number cannot make the lifecycle fetch in a
        /// loop.
        init<Config>(_ configuration: LifecycleConfiguration<Config>) {
            refreshInterval = configuration.refreshInterval.map {
                TimeUnits.nanoseconds(in: max($0, LifecycleConfiguration<Config>.minimumRefreshInterval))
            }
            timeToLive = configuration.timeToLive.flatMap { $0.isNaN ? nil : max($0, 0) }
            fetchesOnStart = configuration.fetchesOnStart
            retryPolicy = configuration.retryPolicy
        }

        /// Settings for tests of the machine alone.
        init(
            refreshInterval: TimeInterval? = 60, timeToLive: TimeInterval? = nil, fetchesOnStart: Bool = true,
            retryPolicy: RetryPolicy = RetryPolicy(jitter: 0)
        ) {
            self.refreshInterval = refreshInterval.map { TimeUnits.nanoseconds(in: $0) }
            self.timeToLive = timeToLive
            self.fetchesOnStart = fetchesOnStart
            self.retryPolicy = retryPolicy
        }
    }

    /// What the shell does after an event, in order, outside its lock.
    enum Action {
        /// Reports a step to ``LifecycleConfiguration/diagnostics``.
        case report(LifecycleDiagnostic)
        /// Resumes the parked loop: to fetch (the fetch has begun) or to stop (boxed, so that this
        /// enum's layout does not depend on the waiter's type).
        case wakeLoop(Boxed<LoopWaiter>, LifecycleLoopWake)
        /// Resumes `refreshNow()` callers with a result.
        case resume(Boxed<[RefreshWaiter]>, Result<ConfigChange, any Error>)
        /// Arms the one timer: at `deadline`, call ``timerFired(_:now:)`` with `generation`; any
        /// timer of an earlier generation is cancelled.
        case setTimer(generation: UInt64, deadline: Nanoseconds)
        /// Cancels the timer of `generation` or earlier.
        case cancelTimer(generation: UInt64)
        /// Abandons the fetch in flight: the lifecycle stopped, and waits for no fetch service.
        case abandonFetch
    }

    /// What the next fetch that is not a demand waits for.
    enum Schedule: Equatable, Sendable {
        /// The first fetch, due as soon as the lifecycle runs.
        case firstFetch
        /// The SDK's first configuration (`fetchesOnStart == false`): then a refresh an interval later.
        case firstConfig
        /// A periodic refresh at this time.
        case refresh(at: Nanoseconds)
        /// A retry after a failure at this time.
        case retry(at: Nanoseconds)
        /// Nothing: no interval after a success; only demands and requests fetch.
        case idle
    }

    /// How old the configuration in effect is.
    enum ConfigTime: Equatable, Sendable {
        /// No configuration yet.
        case none
        /// A configuration whose fetch time nobody knows (a bundled one): stale.
        case unknown
        /// `age` old at `time` on the lifecycle's clock: an age rather than an instant, since a
        /// configuration the SDK set may have been fetched before the clock's origin.
        case known(age: Nanoseconds, at: Nanoseconds)

        /// The age at `now`; `nil` without a configuration, `.max` when nobody knows.
        func age(at now: Nanoseconds) -> Nanoseconds? {
            switch self {
            case .none: nil
            case .unknown: .max
            case .known(let age, let time): LifecycleStateMachine.adding(now > time ? now - time : 0, to: age)
            }
        }
    }

    /// How the lifecycle runs.
    enum Phase: Equatable, Sendable {
        /// Not started.
        case idle
        /// Applying the initial and cached configurations.
        case starting
        /// Fetching, waiting, refreshing.
        case running
        /// Stopped for good.
        case stopped
    }

    /// The fetch in flight.
    fileprivate enum Fetch: Equatable {
        /// None: between fetches.
        case none
        /// Fetch number `n` (see ``fetchCount``) is running: a demand joins it.
        case inFlight(UInt64)
        /// Fetch `n` returned and is being applied: a demand asks for the next one.
        case applying(UInt64)
    }

    fileprivate enum Loop {
        /// Fetching, applying, or between waits.
        case running
        /// Suspended until the machine wakes it.
        case parked(Boxed<LoopWaiter>)
        /// Stopped: every park returns ``LifecycleLoopWake/stop``.
        case stopped
    }

    fileprivate enum Refresh {
        /// An id handed out to a caller that has not registered yet.
        case reserved
        /// Cancelled before it registered: the registration resumes at once.
        case cancelledEarly
        /// Waiting for fetch number `fetch` to end.
        case waiting(Boxed<RefreshWaiter>, fetch: UInt64)
    }

    let settings: Settings
    private(set) var phase = Phase.idle
    private(set) var schedule = Schedule.firstFetch
    private var fetch = Fetch.none
    private var loop = Loop.running
    /// How many fetches have begun: the number of the fetch in flight, or of the last one.
    private(set) var fetchCount: UInt64 = 0
    /// Failures in a row since the last success, for the backoff.
    private(set) var failures = 0
    /// Low power mode is on.
    private(set) var isLowPower = false
    /// The SDK paused refreshing.
    private(set) var isPausedBySDK = false
    /// Readiness is decided: ready (from any source, degraded too), failed, or shut down.
    private(set) var isDecided = false
    /// A demand waits for a fetch that has not begun.
    private var isDemanded = false
    /// A request waits for the schedule to allow a fetch; the reason it was asked for.
    private(set) var request: LifecycleDiagnostic.RefreshReason?
    /// The held fetch was reported (``LifecycleDiagnostic/refreshHeld``) and waits for the pause to end.
    private var isHeldReported = false
    /// When the last fetch ended: when its configuration arrived, for one that brought one.
    private var lastFetchEnd: Nanoseconds?
    /// When the configuration of the fetch being applied arrived.
    private var arrival: Nanoseconds?
    /// When the configuration in effect was fetched.
    private(set) var configTime = ConfigTime.none
    /// The timer's generation, and its deadline while armed.
    private var timerGeneration: UInt64 = 0
    private(set) var timerDeadline: Nanoseconds?
    private var refreshes: [UInt64: Refresh] = [:]
    private var nextRefreshID: UInt64 = 0
    /// Why the lifecycle stopped, when not by shutdown: the error that ended readiness, or
    /// `CancellationError` for ``CatalogClient/stopFetching()``.
    private(set) var stopReason: (any Error)?

    init(settings: Settings) {
        self.settings = settings
    }

    // MARK: Reading

    /// Whether the lifecycle stopped.
    var isStopped: Bool { phase == .stopped }

    /// Whether a fetch is in flight or being applied.
    var isFetching: Bool { fetch != .none }

    /// Whether the loop is parked.
    var isParked: Bool {
        if case .parked = loop { return true }
        return false
    }

    /// What refresh callers get once stopped: the error that ended readiness or stopped fetching,
    /// or shutdown.
    var stopError: any Error { stopReason ?? ReadinessError.shutDown }

    /// The refresh ids that await their caller or their fetch: callers in flight, never more.
    var refreshBookkeepingCount: Int { refreshes.count }

    /// Whether a pause holds the fetches that are not demands: a pause is on, readiness is decided,
    /// and the fetch due is not the lifecycle's first.
    var isHeld: Bool { (isLowPower || isPausedBySDK) && isDecided && schedule != .firstFetch }

    // MARK: Starting and stopping

    /// Starts; returns `false` when it had started already.
    mutating func start() -> Bool {
        guard phase == .idle else { return false }
        phase = .starting
        return true
    }

    /// The initial and cached configurations are applied: the schedule begins.
    ///
    /// - Parameters:
    ///   - isReady: Whether the store is ready (a degraded start included).
    ///   - isDecided: Whether readiness is decided.
    ///   - now: The time.
    /// - Returns: The actions that follow.
    mutating func startingConfigsApplied(isReady: Bool, isDecided: Bool, now: Nanoseconds) -> [Action] {
        guard phase == .starting else { return [] }
        phase = .running
        self.isDecided = self.isDecided || isDecided
        // A demand that fetched while the cache loaded set the schedule already, by its result.
        guard fetchCount == 0 else { return evaluate(now: now) }
        if settings.fetchesOnStart {
            schedule = .firstFetch
        } else {
            schedule = isReady ? periodicSchedule(after: now) : .firstConfig
        }
        return evaluate(now: now)
    }

    /// Stops for good: the loop, the timer and every caller waiting for a fetch.
    ///
    /// - Parameter reason: Why; `nil` for shutdown. The first reason given stays.
    /// - Returns: The actions that follow.
    mutating func stop(because reason: (any Error)?) -> [Action] {
        guard phase != .stopped else { return [] }
        phase = .stopped
        if stopReason == nil { stopReason = reason }
        var actions = cancelTimer()
        if case .parked(let waiter) = loop { actions.append(.wakeLoop(waiter, .stop)) }
        if case .inFlight = fetch { actions.append(.abandonFetch) }
        loop = .stopped
        let waiters = takeRefreshWaiters(upTo: .max)
        if !waiters.isEmpty { actions.append(.resume(Boxed(waiters), .failure(stopError))) }
        return actions
    }

    // MARK: The loop

    /// Parks the loop until a fetch is due, or lets it fetch or stop at once: deciding and parking
    /// are one step, so no event can fall between them and be lost.
    ///
    /// The loop's waiter is resumed through the actions returned, possibly at once.
    mutating func park(_ waiter: LoopWaiter, now: Nanoseconds) -> [Action] {
        switch loop {
        case .stopped:
            return [.wakeLoop(Boxed(waiter), .stop)]
        case .parked:
            preconditionFailure("the lifecycle has one loop")
        case .running:
            loop = .parked(Boxed(waiter))
            return evaluate(now: now)
        }
    }

    /// The timer of `generation` went off.
    mutating func timerFired(_ generation: UInt64, now: Nanoseconds) -> [Action] {
        guard generation == timerGeneration, timerDeadline != nil else { return [] }
        timerDeadline = nil
        return evaluate(now: now)
    }

    /// The fetch returned a configuration at `now`, which is about to be applied: from now on its
    /// age counts, and a demand asks for the next fetch.
    mutating func fetchArrived(now: Nanoseconds) {
        guard case .inFlight(let number) = fetch else { return }
        fetch = .applying(number)
        configTime = .known(age: 0, at: now)
        arrival = now
    }

    /// The fetch succeeded and the store took what it took: schedules the next refresh and resumes
    /// the callers waiting for the fetch.
    ///
    /// - Parameters:
    ///   - change: What the store did with the configuration.
    ///   - now: The time.
    /// - Returns: The actions that follow.
    mutating func fetchSucceeded(_ change: ConfigChange, now: Nanoseconds) -> [Action] {
        guard let number = endFetch(now: now) else { return [] }
        failures = 0
        schedule = periodicSchedule(after: now)
        var actions = resumeRefreshWaiters(upTo: number, with: .success(change))
        if let interval = settings.refreshInterval {
            actions.append(.report(.refreshScheduled(in: TimeUnits.seconds(inNanoseconds: interval))))
        }
        return actions + evaluate(now: now)
    }

    /// The fetch failed: schedules the retry and reports it.
    ///
    /// The callers waiting for the fetch resume at ``fetchFailedEnded(_:now:)``, after the shell
    /// resolved a degraded start.
    ///
    /// - Parameters:
    ///   - error: The fetch's error.
    ///   - random: A number in `0..<1` that picks the jitter.
    ///   - now: The time.
    /// - Returns: The actions that follow.
    mutating func fetchFailed(_ error: any Error, random: Double, now: Nanoseconds) -> [Action] {
        guard case .inFlight(let number) = fetch else { return [] }
        fetch = .applying(number)
        failures += 1
        let (delay, isRetryable) = retryDelay(after: error, random: random)
        let attempt = failures
        // A failure that retrying will not mend says nothing about the next: back off from the start.
        if !isRetryable { failures = 0 }
        schedule = .retry(at: Self.adding(TimeUnits.nanoseconds(in: delay), to: now))
        return [.report(.fetchFailed(error, attempt: attempt, retryIn: delay))]
    }

    /// Ends the failed fetch: resumes the callers waiting for it with `error`.
    mutating func fetchFailedEnded(_ error: any Error, now: Nanoseconds) -> [Action] {
        guard let number = endFetch(now: now) else { return [] }
        return resumeRefreshWaiters(upTo: number, with: .failure(error)) + evaluate(now: now)
    }

    // MARK: Demands

    /// Hands out an id to a `refreshNow()` caller, before it registers.
    mutating func makeRefreshID() -> UInt64 {
        defer { nextRefreshID += 1 }
        refreshes[nextRefreshID] = .reserved
        return nextRefreshID
    }

    /// Registers a `refreshNow()` caller: it joins the fetch in flight, or demands one, which starts
    /// at once (as soon as the lifecycle runs, before it starts).
    mutating func addRefreshWaiter(_ id: UInt64, _ waiter: RefreshWaiter, now: Nanoseconds) -> [Action] {
        let reservation = refreshes.removeValue(forKey: id)
        if phase == .stopped { return [.resume(Boxed([waiter]), .failure(stopError))] }
        if case .cancelledEarly = reservation { return [.resume(Boxed([waiter]), .failure(CancellationError()))] }
        if case .inFlight(let number) = fetch {
            refreshes[id] = .waiting(Boxed(waiter), fetch: number)
            return []
        }
        refreshes[id] = .waiting(Boxed(waiter), fetch: fetchCount + 1)
        guard !isDemanded else { return [] }
        isDemanded = true
        return [.report(.refreshRequested(.demand))] + evaluate(now: now)
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

    // MARK: Requests and staleness

    /// How old the configuration in effect is at `now`, in seconds: `nil` without one, infinity when
    /// nobody knows when it was fetched.
    func configAge(now: Nanoseconds) -> TimeInterval? {
        configTime.age(at: now).map { $0 == .max ? .infinity : TimeUnits.seconds(inNanoseconds: $0) }
    }

    /// Asks for a fetch when the configuration is older than its time to live.
    ///
    /// A read of it, or the app coming to the foreground. Requests coalesce and wait for the
    /// schedule.
    mutating func requestIfStale(_ reason: LifecycleDiagnostic.RefreshReason, now: Nanoseconds) -> [Action] {
        guard let timeToLive = settings.timeToLive, phase == .running, let age = configAge(now: now) else { return [] }
        guard age >= timeToLive else {
            // A read happens all the time; a foreground visit is worth a line.
            return reason == .foreground ? [.report(.refreshSkipped(age: age, timeToLive: timeToLive))] : []
        }
        // A fetch in flight brings a fresh configuration; a request already made waits for its fetch.
        // One that has arrived is the configuration this read found stale (the clock moved while it
        // was applied): the request is remembered, and served once that fetch has ended.
        if case .inFlight = fetch { return [] }
        guard request == nil else { return [] }
        request = reason
        return [.report(.refreshRequested(reason))] + evaluate(now: now)
    }

    /// A configuration was committed to the store, by the lifecycle or by the SDK, `age` seconds
    /// after it was fetched (`nil`: nobody knows when).
    mutating func configCommitted(_ change: ConfigChange, age: TimeInterval?, now: Nanoseconds) -> [Action] {
        let committed = age.map { ConfigTime.known(age: TimeUnits.nanoseconds(in: $0), at: now) } ?? .unknown
        switch change {
        case .ignored:
            return []
        case .unchanged:
            // The same configuration, confirmed: as fresh as the fresher of the two.
            if let old = configTime.age(at: now), let new = committed.age(at: now), old < new { break }
            configTime = committed
        case .first, .updated:
            configTime = committed
        }
        // A request made while it was stale has nothing left to ask for.
        if request != nil, let timeToLive = settings.timeToLive, let age = configAge(now: now), age < timeToLive {
            request = nil
        }
        return evaluate(now: now)
    }

    // MARK: Pauses and readiness

    /// Low power mode turned on or off.
    mutating func setLowPower(_ isOn: Bool, now: Nanoseconds) -> [Action] {
        guard isLowPower != isOn else { return [] }
        isLowPower = isOn
        return [.report(isOn ? .refreshPaused : .refreshResumed)] + evaluate(now: now)
    }

    /// The SDK paused refreshing, or resumed it: as low power mode, independently of it.
    mutating func setPausedBySDK(_ isOn: Bool, now: Nanoseconds) -> [Action] {
        guard isPausedBySDK != isOn else { return [] }
        isPausedBySDK = isOn
        return [.report(isOn ? .refreshPaused : .refreshResumed)] + evaluate(now: now)
    }

    /// Readiness was decided with a configuration or degraded (`isReady`), or failed or was shut
    /// down: from now on a pause holds the fetches that are not demands, and a lifecycle that waits
    /// for the SDK's first configuration schedules its first refresh.
    mutating func readinessDecided(isReady: Bool, now: Nanoseconds) -> [Action] {
        isDecided = true
        if isReady, schedule == .firstConfig, phase == .running { schedule = periodicSchedule(after: now) }
        return evaluate(now: now)
    }

    // MARK: Deciding

    /// When the next fetch that is not a demand may start: the schedule's time, or a request's
    /// earliest time when that comes first (never before a pending retry).
    private var plannedFetchTime: Nanoseconds? {
        var planned: Nanoseconds?
        switch schedule {
        case .firstFetch: planned = 0
        case .firstConfig, .idle: planned = nil
        case .refresh(let time), .retry(let time): planned = time
        }
        if request != nil, !isRetryPending {
            let earliest = lastFetchEnd.map { Self.adding(Self.minimumFetchSpacing, to: $0) } ?? 0
            planned = min(planned ?? .max, earliest)
        }
        return planned
    }

    private var isRetryPending: Bool {
        if case .retry = schedule { return true }
        return false
    }

    /// Decides what follows from the state at `now`: a fetch now, a held fetch reported, or the
    /// timer armed for the next one.
    private mutating func evaluate(now: Nanoseconds) -> [Action] {
        // While the starting configurations load, only a demand fetches: it waits for no cache.
        guard phase == .running || (phase == .starting && isDemanded), fetch == .none else { return [] }
        if isDemanded { return beginFetchIfParked() }
        guard let planned = plannedFetchTime else { return cancelTimer() }
        guard planned <= now else { return setTimer(at: planned) }
        guard isHeld else { return beginFetchIfParked() }
        var actions = cancelTimer()
        if !isHeldReported {
            isHeldReported = true
            actions.append(.report(.refreshHeld))
        }
        return actions
    }

    /// Begins a fetch when the loop is parked; otherwise the loop's next park does.
    private mutating func beginFetchIfParked() -> [Action] {
        guard case .parked(let waiter) = loop else { return [] }
        loop = .running
        fetchCount += 1
        fetch = .inFlight(fetchCount)
        isDemanded = false
        request = nil
        isHeldReported = false
        return cancelTimer() + [.report(.fetchStarted(attempt: failures + 1)), .wakeLoop(waiter, .fetch)]
    }

    /// Ends the fetch in flight at `now`; returns its number.
    private mutating func endFetch(now: Nanoseconds) -> UInt64? {
        switch fetch {
        case .none:
            return nil
        case .inFlight(let number), .applying(let number):
            fetch = .none
            // The spacing between fetches counts from the configuration's arrival, as its age
            // does: applying and caching it take what they take, and `ready()` callers resume
            // meanwhile (a test that moved its clock then saw the next fetch wait on the move).
            lastFetchEnd = arrival ?? now
            arrival = nil
            return number
        }
    }

    private func periodicSchedule(after now: Nanoseconds) -> Schedule {
        settings.refreshInterval.map { .refresh(at: Self.adding($0, to: now)) } ?? .idle
    }

    private mutating func setTimer(at deadline: Nanoseconds) -> [Action] {
        guard timerDeadline != deadline else { return [] }
        timerGeneration += 1
        timerDeadline = deadline
        return [.setTimer(generation: timerGeneration, deadline: deadline)]
    }

    private mutating func cancelTimer() -> [Action] {
        guard timerDeadline != nil else { return [] }
        timerDeadline = nil
        timerGeneration += 1
        return [.cancelTimer(generation: timerGeneration)]
    }

    /// How long to wait after a failure, following the error's advice, and whether it advised
    /// retrying.
    private func retryDelay(after error: any Error, random: Double) -> (TimeInterval, isRetryable: Bool) {
        let policy = settings.retryPolicy
        let advice = error as? any FetchRetryAdvice
        if let advice, !advice.isRetryable {
            // Backing off will not help (a rejected key, say): try again at the next refresh, or
            // after the longest backoff when there is none, so that readiness can still come.
            let interval = settings.refreshInterval.map(TimeUnits.seconds(inNanoseconds:))
            return (max(interval ?? policy.delay(afterFailures: .max, random: 0), RetryPolicy.minimumDelay), false)
        }
        let backoff = policy.delay(afterFailures: failures, random: random)
        // A requested wait that is not a positive number is no advice.
        guard let requested = advice?.retryAfter, requested > 0 else { return (backoff, true) }
        return (max(backoff, min(requested, ConfigFetchError.longestRetryAfter)), true)
    }

    // MARK: Refresh callers

    private mutating func resumeRefreshWaiters(
        upTo number: UInt64, with result: Result<ConfigChange, any Error>
    ) -> [Action] {
        let waiters = takeRefreshWaiters(upTo: number)
        return waiters.isEmpty ? [] : [.resume(Boxed(waiters), result)]
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

    /// `interval` after `time`, saturating instead of overflowing.
    fileprivate static func adding(_ interval: Nanoseconds, to time: Nanoseconds) -> Nanoseconds {
        let (sum, overflow) = time.addingReportingOverflow(interval)
        return overflow ? .max : sum
    }
}

extension LifecycleStateMachine: Sendable where LoopWaiter: Sendable, RefreshWaiter: Sendable {}
extension LifecycleStateMachine.Refresh: Sendable where RefreshWaiter: Sendable {}
extension LifecycleStateMachine.Loop: Sendable where LoopWaiter: Sendable {}
extension LifecycleStateMachine.Action: Sendable where LoopWaiter: Sendable, RefreshWaiter: Sendable {}
