import Foundation
import SDKEventBusConfig

/// What should have happened: the configuration half's promises for 1.1 as plain state, in the
/// simplest code that can say them.
///
/// The promises, numbered as the checks cite them:
///
/// 1. A demand (`refreshNow()`) joins the fetch in flight, or starts one at once, paused or not,
///    backing off or not, before or after the first fetch; it reports `.refreshRequested(.demand)`
///    when it starts one, and returns that fetch's result, or why the lifecycle stopped.
/// 2. A request (a stale read of `config`, a foreground) is one flag, reported once, acted on at the
///    earliest moment the schedule allows: never during a fetch, before a backoff ends, while paused
///    once ready, or sooner than 100 ms after the last fetch. Reads are never a request by themselves.
/// 3. A configuration's age counts from when it was fetched, whoever set it (the lifecycle, the
///    SDK's `fetchedAt`, the cache's save date); one of unknown age is stale.
/// 4. After a failure the next fetch but a demand waits the retry policy's delay, from 100 ms to a
///    day whatever its values, and at least the server's Retry-After.
/// 5. Pauses (low power mode, `pauseRefreshing()`) hold refreshes, requests and retries once ready;
///    never the first fetch, a retry readiness waits for, the degraded deadline or a demand.
/// 6. Nothing is fetched after `stopFetching()`, a `failReadiness` that decided, an error that ended
///    readiness, `shutdown()`, or dropping the client.
/// 7. Only the side that created a store ends it.
/// 8. Nothing waits on a clock, fetch or cache that ignores cancellation.
/// 9. Readiness is decided once; every caller gets that outcome; the ready event is fired before any
///    `ready()` returns; every change is announced once, in order.
/// 10. Every decision is one diagnostic step.
/// 11. (The notification center the app-lifecycle observers use: nothing to simulate.)
/// 12. When everything ends, no task, continuation, clock sleeper or waiter of the package is left.
///
/// It never decides *how* the lifecycle does something, only what may and what must happen: which
/// fetch may start now and which must have started, what readiness was decided and what every caller
/// gets, what each configuration changes. Where the promises leave a choice (a refresh-only
/// lifecycle's first refresh may count from the configuration's age or from readiness; a
/// configuration's age set from a `Date` is known only to a fraction of a second), it allows a range.
///
/// A class, not a struct: the checks read it on every observation, and a debug build would copy a
/// struct (its dictionaries retained and released) at every read.
final class LifecycleModel {
    /// How readiness was decided.
    enum Decision: Equatable {
        case ready(Readiness.Source)
        /// Failed for good with the error so described.
        case failed(String)
        case shutDown
    }

    /// Why the lifecycle stopped, and so what a refresh asked for afterwards throws (§1, §6).
    enum StopReason: Equatable {
        case stopFetching
        case failed(String)
        case shutDown
    }

    /// Whether the configuration in effect is older than its time to live.
    enum Staleness {
        case fresh
        /// Too close to call: the promises allow either.
        case maybe
        case stale
    }

    /// A request (a stale read, a foreground) remembered until a fetch starts (§2).
    enum Request: Comparable {
        case none
        case maybe
        case definite
    }

    struct ReadyCaller {
        /// When its timeout passes; `nil` without one.
        var deadline: TimeInterval?
        /// A timeout of zero, a negative one or `nan`: it must not wait at all.
        var waitsNotAtAll = false
        var isCancelled = false
        /// A broken promise about it was tolerated: nothing more is checked of it.
        var isExcused = false
    }

    struct RefreshCaller {
        /// The fetch it started or joined.
        var fetch: Int?
        var calledInStep: Int
        var isCancelled = false
        /// A broken promise about it was tolerated: nothing more is checked of it.
        var isExcused = false
    }

    let settings: SimulationSettings
    /// A tolerance on the clock, in seconds: deadlines are kept in whole nanoseconds.
    static let epsilon: TimeInterval = 1e-6
    /// The shortest time between the end of a fetch and a fetch the schedule starts (§2).
    static let floor: TimeInterval = 0.1
    /// The longest wait after a failure (§4).
    static let longestDelay: TimeInterval = 86_400

    var now: TimeInterval = 0
    var step = 0

    // MARK: Readiness and the store (§9)

    var decision: Decision?
    /// The readiness the ready event announced.
    var announced: Readiness?
    /// The configuration in effect.
    var version: Int?
    /// The version the last update announced (or the ready event).
    var announcedVersion: Int?
    /// When the configuration in effect was fetched, on the clock, as a range; `nil`: unknown (§3).
    var fetchedAt: ClosedRange<TimeInterval>?
    /// When readiness was decided ready, for a refresh-only lifecycle's first refresh.
    var readyTime: TimeInterval?
    /// The SDK failed the store it keeps, behind the lifecycle's back: what the lifecycle does then
    /// is not promised.
    var storeFailedBySDK = false
    /// Where the configuration in effect came from: a cache that answers after a live one was
    /// applied is ignored (a refresh asked for while the cache loaded waits for no cache).
    var source: Readiness.Source?

    // MARK: The lifecycle

    var hasLifecycle: Bool
    /// The client exists (it goes away only some time after the SDK lets go of it).
    var clientAlive: Bool
    /// The SDK let go of its client.
    var dropRequested = false
    var stopReasons: [StopReason] = []
    var stoppedReported = false
    /// The lifecycle stopped and owes its `.stopped` step: at once when its task was cancelled
    /// (§8), else once no call it may still await is pending.
    var stoppedReportDue = false
    var lowPower = false
    var sdkPaused = false
    /// The lifecycle's fetch in flight.
    var inFlight: Int?
    var lastFetchEnd: TimeInterval?
    var backoffUntil: TimeInterval?
    /// When the next fetch is due after a failure (§4), and whether readiness was undecided then.
    var retryDue: TimeInterval?
    var retryForReadiness = false
    /// When the next periodic refresh is due, as a range (§5).
    var periodic: ClosedRange<TimeInterval>?
    /// The first fetch of a lifecycle that fetches on start has not started.
    var firstFetchDue: Bool
    /// The cache was answered, or there is none: the first fetch may start.
    var startupDone: Bool
    var request = Request.none
    /// A `.refreshRequested(.stale/.foreground)` was reported since the last fetch started.
    var requestReported = false
    /// A configuration of uncertain freshness arrived while a request was made: the lifecycle may
    /// have withdrawn it, so a new request may be reported.
    var requestMaybeWithdrawn = false
    /// A demand did not start its fetch at once (a broken promise tolerated): the fetch that comes
    /// late is its own, even once its caller was cancelled.
    var lateDemand = false
    var degradedDeadline: TimeInterval?
    var failures = 0
    /// How many fetches the schedule started (every fetch but a demand's).
    var scheduledFetches = 0
    /// The version of the configuration the cache held, once loaded.
    var cacheVersion: Int?

    var readyCallers: [Int: ReadyCaller] = [:]
    /// When readiness was decided: a caller whose deadline is that same instant may time out.
    var decidedAt: TimeInterval?
    var refreshCallers: [Int: RefreshCaller] = [:]

    init(settings: SimulationSettings) {
        self.settings = settings
        hasLifecycle = settings.hasLifecycle
        clientAlive = settings.hasLifecycle
        firstFetchDue = settings.hasLifecycle && settings.fetchesOnStart
        startupDone = settings.cache == nil
        lowPower = settings.lowPowerAtLaunch && settings.hasLifecycle
        if settings.hasLifecycle, case .degraded(let timeout?) = settings.policy { degradedDeadline = timeout }
    }

    // MARK: Queries

    var isStopped: Bool { !stopReasons.isEmpty }
    /// The SDK holds its client: its verbs can be called.
    var hasClient: Bool { clientAlive && !dropRequested }
    var isDecided: Bool { decision != nil }
    var isPaused: Bool { lowPower || sdkPaused }
    /// Whether the lifecycle runs: it can fetch, and must when a fetch falls due.
    var isRunning: Bool { hasLifecycle && clientAlive && !isStopped }

    /// The time to live the lifecycle runs with: none (`nil`, or `nan`, as `LifecycleConfiguration`
    /// documents), or at least zero (§3).
    var timeToLive: TimeInterval? {
        guard let ttl = settings.timeToLive, !ttl.isNaN else { return nil }
        return max(ttl, 0)
    }

    /// How old the configuration in effect is, at the youngest and the oldest it can be.
    var age: ClosedRange<TimeInterval>? {
        fetchedAt.map { (now - $0.upperBound)...(now - $0.lowerBound) }
    }

    /// Whether the configuration in effect is stale now (§3).
    var staleness: Staleness {
        guard let ttl = timeToLive else { return .fresh }
        guard version != nil else { return .maybe }
        guard let age else { return .stale }
        if age.lowerBound >= ttl + Self.epsilon { return .stale }
        if age.upperBound < ttl - Self.epsilon { return .fresh }
        return .maybe
    }

    /// What the store does with configuration `version` now.
    func change(applying version: Int) -> ConfigChange {
        switch decision {
        case nil: .first
        case .failed?, .shutDown?: .ignored
        case .ready?: version == self.version ? .unchanged : .updated
        }
    }

    /// The errors a refresh asked for once stopped may throw (§1).
    var stopErrors: [String] {
        stopReasons.map { reason in
            switch reason {
            case .stopFetching: String(describing: CancellationError())
            case .failed(let description): description
            case .shutDown: String(describing: ReadinessError.shutDown)
            }
        }
    }

    /// Whether a pause holds a fetch the schedule would start now (§5): paused once decided, unless
    /// it is the first fetch or a retry readiness waited for.
    func holds(retry: Bool) -> Bool {
        guard isPaused, isDecided else { return false }
        if firstFetchDue { return false }
        if retry, retryForReadiness { return false }
        return true
    }

    /// The earliest a fetch the schedule starts may start: 100 ms after the last, and not before a
    /// pending backoff ends (§2, §4).
    var scheduleFloor: TimeInterval {
        max((lastFetchEnd ?? -.infinity) + Self.floor, backoffUntil ?? -.infinity)
    }

    /// Why the schedule may start a fetch now, if it may: `nil` when none is allowed.
    var scheduledFetchReason: String? {
        if firstFetchDue, startupDone { return "the first fetch" }
        if let due = retryDue, now >= due - Self.epsilon { return "the retry due at \(due)" }
        if let periodic, now >= periodic.lowerBound - Self.epsilon { return "the refresh due at \(periodic)" }
        if request != .none { return "a request" }
        return nil
    }

    /// A fetch the schedule should have started by now and has not (§2, §4, §5): `nil` when none.
    var overdueFetch: String? {
        // While the cache is being loaded the schedule may wait for it (a demand may not).
        guard isRunning, inFlight == nil, startupDone else { return nil }
        if firstFetchDue, startupDone { return "the first fetch" }
        guard now >= scheduleFloor - Self.epsilon else { return nil }
        // A retry readiness waited for may run while paused once decided; it need not.
        if let due = retryDue, now >= due + Self.epsilon, !(isPaused && isDecided) {
            return "the retry due at \(due)"
        }
        if let periodic, now >= periodic.upperBound + Self.epsilon, !holds(retry: false) {
            return "the refresh due at \(periodic.upperBound)"
        }
        if request == .definite, staleness == .stale, !holds(retry: false), startupDone, !firstFetchDue {
            return "the request for the stale configuration"
        }
        return nil
    }

    /// The next instant at which something is due, for `advanceToNextDeadline`.
    var nextDeadline: TimeInterval? {
        var deadlines: [TimeInterval] = readyCallers.values.compactMap(\.deadline)
        if let retryDue { deadlines.append(retryDue) }
        if let periodic { deadlines += [periodic.lowerBound, periodic.upperBound] }
        if let degradedDeadline { deadlines.append(degradedDeadline) }
        if request != .none { deadlines.append(scheduleFloor) }
        if let ttl = timeToLive, let fetchedAt { deadlines.append(fetchedAt.upperBound + ttl) }
        return deadlines.filter { $0 > now + Self.epsilon && $0.isFinite }.min()
    }

    // MARK: Transitions

    /// Readiness was decided.
    func decide(_ decision: Decision) {
        self.decision = decision
        decidedAt = now
        if case .ready = decision { readyTime = now }
    }

    /// The store took configuration `version`, fetched within `fetchedAt` (`nil`: unknown).
    func apply(
        _ change: ConfigChange, version: Int, source: Readiness.Source, fetchedAt: ClosedRange<TimeInterval>?
    ) {
        guard change != .ignored else { return }
        if change == .first { decide(.ready(source)) }
        self.version = version
        self.fetchedAt = fetchedAt
        self.source = source
        // A request made while the configuration was stale has nothing left to ask for once a fresh
        // one arrives; where its freshness is uncertain, the request may or may not remain.
        guard request != .none || requestReported else { return }
        switch staleness {
        case .fresh:
            request = .none
            requestReported = false
        case .maybe:
            request = min(request, .maybe)
            requestMaybeWithdrawn = true
        case .stale:
            break
        }
    }

    /// A fetch started: it serves whatever was due or asked for.
    func fetchStarted(_ number: Int) {
        inFlight = number
        firstFetchDue = false
        retryDue = nil
        periodic = nil
        request = .none
        requestReported = false
        requestMaybeWithdrawn = false
        lateDemand = false
    }

    /// The lifecycle's fetch succeeded, at `now`.
    func fetchSucceeded() {
        inFlight = nil
        lastFetchEnd = now
        backoffUntil = nil
        failures = 0
        if let interval = settings.effectiveRefreshInterval { periodic = (now + interval)...(now + interval) }
    }

    /// The lifecycle's fetch failed, at `now`; the next is in `retryIn` seconds.
    func fetchFailed(retryIn: TimeInterval) {
        inFlight = nil
        lastFetchEnd = now
        failures += 1
        let delay = retryIn.isFinite ? retryIn : Self.longestDelay
        backoffUntil = now + delay
        retryDue = now + delay
        retryForReadiness = !isDecided
    }

    /// The lifecycle stopped, for `reason`.
    func stop(_ reason: StopReason) {
        if !isStopped { stoppedReportDue = true }
        if !stopReasons.contains(reason) { stopReasons.append(reason) }
        inFlight = nil
        retryDue = nil
        periodic = nil
        firstFetchDue = false
        request = .none
        degradedDeadline = nil
    }

    /// A refresh-only lifecycle sees the store ready once it loaded the cache: it refreshes an
    /// interval from then on, or earlier, counting from the configuration's age (§3, §5).
    func startRefreshingAfterFirstConfig() {
        guard hasLifecycle, !settings.fetchesOnStart, startupDone, periodic == nil, inFlight == nil,
            lastFetchEnd == nil, case .ready? = decision, let readyTime,
            let interval = settings.effectiveRefreshInterval
        else { return }
        periodic = readyTime...(now + interval)
    }
}
