import Foundation
import SDKEventBusConfig

/// How one simulated SDK composes the configuration half, and the settings it runs with: chosen
/// once per sequence by the generator, printed as Swift when a sequence fails.
struct SimulationSettings: Equatable, CustomStringConvertible {
    /// The parts the SDK takes, as SDKs compose them.
    enum Composition: String {
        /// `CatalogClient.makeClient(configuration:fetch:)`: the whole client, the SDK's fetch function.
        case wholeClient
        /// `CatalogClient.makeClient(configuration:fetchService:)`: the whole client, a fetch service.
        case wholeClientOnService
        /// A `CatalogConfigStore` the SDK fills by hand: no lifecycle at all.
        case storeByHand
        /// `CatalogClient(store:configuration:fetch:)` over a store the SDK keeps and sets too.
        case clientOverSDKStore
    }

    /// The clock every wait of the lifecycle, and every timed `ready(timeout:clock:)`, runs on.
    enum ClockKind: String {
        /// The testing library's `TestClock` itself (read in nanoseconds).
        case testClock
        /// An SDK's own `LifecycleClock` built on it, whose sleep honours cancellation.
        case sdkClock
        /// An SDK's own clock whose sleep ignores cancellation and returns only when time reaches
        /// its deadline, as `DispatchQueue.asyncAfter` and a continuation do.
        case sdkClockIgnoringCancellation
    }

    /// The readiness policy, as a value the generator picks and prints.
    enum Policy: Equatable {
        case live
        case cachedOrLive
        case degraded(after: TimeInterval?)
    }

    /// What the cache holds when the lifecycle loads it.
    enum CacheContent: Equatable {
        case empty
        /// A configuration saved `age` seconds ago; `nil`: a cache that keeps no date.
        case config(age: TimeInterval?)
        /// It cannot be read (a protected file while the device is locked).
        case unreadable
        /// It holds something that is not a configuration (a `JSONDecodingError`).
        case corrupt
    }

    /// The retry policy's values, set through `RetryPolicy.init` or, as an SDK may, through its
    /// public `var`s after it (which `init` does not check).
    struct Retry: Equatable {
        var initialDelay: TimeInterval = 1
        var multiplier: Double = 2
        var maximumDelay: TimeInterval = 30
        var jitter: Double = 0
        var throughVars = false

        var policy: RetryPolicy {
            guard throughVars else {
                return RetryPolicy(
                    initialDelay: initialDelay, multiplier: multiplier, maximumDelay: maximumDelay, jitter: jitter)
            }
            var policy = RetryPolicy()
            policy.initialDelay = initialDelay
            policy.multiplier = multiplier
            policy.maximumDelay = maximumDelay
            policy.jitter = jitter
            return policy
        }
    }

    var composition = Composition.wholeClient
    var clock = ClockKind.testClock
    var refreshInterval: TimeInterval? = 60
    var timeToLive: TimeInterval?
    var retry = Retry()
    var policy = Policy.cachedOrLive
    var fetchesOnStart = true
    var cache: CacheContent?
    var initialConfig = false
    /// Low power mode reported as the client is created, as the UIKit observer does.
    var lowPowerAtLaunch = false
    var fetchesIgnoreCancellation = false
    var cacheIgnoresCancellation = false
    /// Whether a `ready()` caller arrives during each readiness announcement (from the diagnostics
    /// handler, which runs inside it), as a caller on another thread may.
    var probesAnnouncements = false
    /// The seed of the executor's choices: which ready job runs next.
    var schedule: UInt64 = 0

    var hasLifecycle: Bool { composition != .storeByHand }
    var hasSDKStore: Bool { composition == .storeByHand || composition == .clientOverSDKStore }

    var readinessPolicy: ReadinessPolicy {
        switch policy {
        case .live: .live
        case .cachedOrLive: .cachedOrLive
        case .degraded(let timeout): .degraded(after: timeout)
        }
    }

    /// Whether the initial and cached configurations may make the SDK ready.
    var usesStoredConfigs: Bool { policy != .live }

    /// The refresh interval the lifecycle runs with: at least 1 s, as documented.
    var effectiveRefreshInterval: TimeInterval? { refreshInterval.map { $0 >= 1 ? $0 : 1 } }

    var description: String {
        let defaults = SimulationSettings()
        var fields: [String] = []
        func add<Value: Equatable>(_ name: String, _ value: Value, _ original: Value, _ text: String) {
            if value != original { fields.append("\(name): \(text)") }
        }
        add("composition", composition, defaults.composition, ".\(composition)")
        add("clock", clock, defaults.clock, ".\(clock)")
        add("refreshInterval", refreshInterval, defaults.refreshInterval, literal(refreshInterval))
        add("timeToLive", timeToLive, defaults.timeToLive, literal(timeToLive))
        add(
            "retry", retry, defaults.retry,
            ".init(initialDelay: \(literal(retry.initialDelay)), multiplier: \(literal(retry.multiplier)), "
                + "maximumDelay: \(literal(retry.maximumDelay)), jitter: \(literal(retry.jitter)), "
                + "throughVars: \(retry.throughVars))")
        add("policy", policy, defaults.policy, literal(policy))
        add("fetchesOnStart", fetchesOnStart, defaults.fetchesOnStart, "\(fetchesOnStart)")
        add("cache", cache, defaults.cache, cache.map(literal) ?? "nil")
        add("initialConfig", initialConfig, defaults.initialConfig, "\(initialConfig)")
        add("lowPowerAtLaunch", lowPowerAtLaunch, defaults.lowPowerAtLaunch, "\(lowPowerAtLaunch)")
        add(
            "fetchesIgnoreCancellation", fetchesIgnoreCancellation, defaults.fetchesIgnoreCancellation,
            "\(fetchesIgnoreCancellation)")
        add(
            "cacheIgnoresCancellation", cacheIgnoresCancellation, defaults.cacheIgnoresCancellation,
            "\(cacheIgnoresCancellation)")
        add("probesAnnouncements", probesAnnouncements, defaults.probesAnnouncements, "\(probesAnnouncements)")
        add("schedule", schedule, defaults.schedule, "\(schedule)")
        return "SimulationSettings(\(fields.joined(separator: ", ")))"
    }
}

/// How the simulated service answers a fetch.
enum FetchAnswer: Equatable {
    /// A configuration never served before.
    case newConfig
    /// The configuration the service served last (the same as the one in effect, usually).
    case sameConfig
    /// A retryable failure, with the server's Retry-After, if any.
    case failure(retryAfter: TimeInterval?)
    /// A failure that backing off will not cure.
    case notRetryable
    /// A failure that ends readiness while it is undecided.
    case endsReadiness
}

/// One step of a simulated sequence: what the SDK, its app, the network, the disk or time does.
///
/// An operation that does not apply (a fetch answered when none is pending, the store's verbs in a
/// composition without the SDK's store) does nothing, so that any subsequence replays: the shrinker
/// relies on it.
enum SimulationOperation: Equatable, CustomStringConvertible {
    /// The SDK sets a configuration it fetched itself `age` seconds ago (`nil`: no date).
    case setConfig(ConfigSource, age: TimeInterval?)
    /// The SDK sets the configuration in effect again, fetched now.
    case setSameConfig
    /// The SDK declares its store ready without a configuration.
    case setDegraded
    /// The SDK fails readiness with its own error: on the client, or on the store it keeps.
    case failReadiness(viaClient: Bool)
    /// Callers start waiting for readiness; with a timeout on the simulation's clock.
    case ready(callers: Int, timeout: TimeInterval?)
    /// The task of the n-th readiness caller still waiting and not cancelled yet (modulo their
    /// count) is cancelled.
    case cancelReady(Int)
    /// Callers ask for a refresh at once.
    case refreshNow(callers: Int)
    /// The task of the n-th refresh caller still waiting and not cancelled yet (modulo their count)
    /// is cancelled.
    case cancelRefresh(Int)
    case pauseRefreshing
    case resumeRefreshing
    case lowPowerMode(Bool)
    case foreground
    /// App code reads `client.config` (or the store's, without a client) `times` times.
    case readConfig(times: Int)
    case stopFetching
    case shutdown
    /// The SDK lets go of its client.
    case drop
    case advance(by: TimeInterval)
    /// Time moves to the next deadline the model knows of, or to 1 ns before it.
    case advanceToNextDeadline(early: Bool)
    /// The service answers the n-th pending fetch (modulo their count).
    case answerFetch(Int, FetchAnswer)
    /// The cache answers its pending load with what the settings say it holds.
    case answerCacheLoad

    var description: String {
        switch self {
        case .setConfig(let source, let age): ".setConfig(.\(source), age: \(literal(age)))"
        case .ready(let callers, let timeout): ".ready(callers: \(callers), timeout: \(literal(timeout)))"
        case .cancelReady(let index): ".cancelReady(\(index))"
        case .refreshNow(let callers): ".refreshNow(callers: \(callers))"
        case .cancelRefresh(let index): ".cancelRefresh(\(index))"
        case .failReadiness(let viaClient): ".failReadiness(viaClient: \(viaClient))"
        case .lowPowerMode(let isEnabled): ".lowPowerMode(\(isEnabled))"
        case .readConfig(let times): ".readConfig(times: \(times))"
        case .advance(let interval): ".advance(by: \(literal(interval)))"
        case .advanceToNextDeadline(let early): ".advanceToNextDeadline(early: \(early))"
        case .answerFetch(let index, let answer): ".answerFetch(\(index), \(literal(answer)))"
        case .setSameConfig: ".setSameConfig"
        case .setDegraded: ".setDegraded"
        case .pauseRefreshing: ".pauseRefreshing"
        case .resumeRefreshing: ".resumeRefreshing"
        case .foreground: ".foreground"
        case .stopFetching: ".stopFetching"
        case .shutdown: ".shutdown"
        case .drop: ".drop"
        case .answerCacheLoad: ".answerCacheLoad"
        }
    }
}

/// A number as Swift source.
func literal(_ value: Double) -> String {
    if value.isNaN { return ".nan" }
    if value.isInfinite { return value < 0 ? "-.infinity" : ".infinity" }
    return "\(value)"
}

func literal(_ value: Double?) -> String { value.map(literal) ?? "nil" }

private func literal(_ policy: SimulationSettings.Policy) -> String {
    switch policy {
    case .live: ".live"
    case .cachedOrLive: ".cachedOrLive"
    case .degraded(let timeout): ".degraded(after: \(literal(timeout)))"
    }
}

private func literal(_ content: SimulationSettings.CacheContent) -> String {
    switch content {
    case .config(let age): ".config(age: \(literal(age)))"
    default: ".\(content)"
    }
}

private func literal(_ answer: FetchAnswer) -> String {
    switch answer {
    case .failure(let retryAfter): ".failure(retryAfter: \(literal(retryAfter)))"
    default: ".\(answer)"
    }
}
