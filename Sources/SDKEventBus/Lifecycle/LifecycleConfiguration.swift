/// How a configuration lifecycle loads, refreshes and becomes ready: the settings of a
/// ``ConfigLifecycle`` and of the client that runs one.
///
/// ```swift
/// var configuration = SDKConfiguration()
/// configuration.refreshInterval = .seconds(60)
/// configuration.retryPolicy = RetryPolicy(initialDelay: .milliseconds(500))
/// configuration.readinessPolicy = .degraded()   // never hang at launch when offline
/// let sdk = SDKClient(configuration: configuration, fetchService: service)
/// ```
public struct LifecycleConfiguration<Config: RemoteConfiguration>: Sendable {
    /// The shortest refresh interval: 1 s.
    ///
    /// Shorter ones are raised to it, so that a misconfigured interval cannot hammer the
    /// configuration server.
    public static var minimumRefreshInterval: Duration { .seconds(1) }

    /// How long after a successful fetch the lifecycle fetches again; `nil` fetches only until the
    /// first success, and after that only on demand (``ConfigLifecycle/refreshNow()``, or a stale
    /// configuration with ``timeToLive``).
    ///
    /// At least ``minimumRefreshInterval``.
    public var refreshInterval: Duration? {
        didSet { refreshInterval = refreshInterval.map { max($0, Self.minimumRefreshInterval) } }
    }
    /// How long the lifecycle waits after failed fetches.
    public var retryPolicy: RetryPolicy
    /// When `ready()` returns: see ``ReadinessPolicy``.
    public var readinessPolicy: ReadinessPolicy
    /// How long a configuration stays fresh.
    ///
    /// Once it is older, reading the client's configuration or the app returning to the
    /// foreground triggers a refresh. `nil` never does.
    public var timeToLive: Duration?
    /// The clock every wait of the lifecycle uses: refreshes, backoff, the degraded deadline.
    ///
    /// Tests pass a manual clock so that they run instantly. A timeout passed to `ready(timeout:)`
    /// is measured on the clock passed there, real time by default.
    public var clock: any Clock<Duration>
    /// Called with each step of the lifecycle, on the lifecycle's task, before what the step causes
    /// (the listeners of an announcement, `ready()` returning).
    ///
    /// Keep it short: while it runs, the lifecycle waits (a shutdown stops waiting after its
    /// timeout, and reports ``ShutdownReport/Work/lifecycle``).
    public var diagnostics: (@Sendable (LifecycleDiagnostic) -> Void)?
    /// Where the last good configuration is kept between launches, if anywhere.
    ///
    /// With ``ReadinessPolicy/cachedOrLive`` (the default) the lifecycle becomes ready from the
    /// cached configuration at start (``Readiness/Source/cache``), then a live fetch that differs
    /// is announced as an update. A corrupt or unreadable cache is ignored and reported, never
    /// applied; a corrupt one is then deleted (``ConfigCache/clear()``).
    public var cache: (any ConfigCache<Config>)?
    /// A configuration to start from, for example defaults bundled with the app: with
    /// ``ReadinessPolicy/cachedOrLive`` the lifecycle is ready from it at once
    /// (``Readiness/Source/initial``), and the cache and live fetches follow.
    public var initialConfig: Config?

    /// Creates a configuration.
    ///
    /// - Parameters:
    ///   - refreshInterval: How long after a successful fetch the lifecycle fetches again.
    ///   - retryPolicy: How long the lifecycle waits after failed fetches.
    ///   - readinessPolicy: When `ready()` returns.
    ///   - timeToLive: How long a configuration stays fresh.
    ///   - clock: The clock every wait of the lifecycle uses.
    ///   - diagnostics: Called with each step of the lifecycle.
    ///   - cache: Where the last good configuration is kept between launches.
    ///   - initialConfig: A configuration to start from.
    public init(
        refreshInterval: Duration? = .seconds(300),
        retryPolicy: RetryPolicy = RetryPolicy(),
        readinessPolicy: ReadinessPolicy = .cachedOrLive,
        timeToLive: Duration? = nil,
        clock: any Clock<Duration> = ContinuousClock(),
        diagnostics: (@Sendable (LifecycleDiagnostic) -> Void)? = nil,
        cache: (any ConfigCache<Config>)? = nil,
        initialConfig: Config? = nil
    ) {
        self.refreshInterval = refreshInterval.map { max($0, Self.minimumRefreshInterval) }
        self.retryPolicy = retryPolicy
        self.readinessPolicy = readinessPolicy
        self.timeToLive = timeToLive
        self.clock = clock
        self.diagnostics = diagnostics
        self.cache = cache
        self.initialConfig = initialConfig
    }
}

/// How the built-in client loads and refreshes its configuration; see ``LifecycleConfiguration``.
public typealias SDKConfiguration = LifecycleConfiguration<ProjectConfig>

/// When an SDK becomes ready: the choice between waiting for fresh configuration and never keeping
/// an app waiting.
///
/// ```swift
/// configuration.readinessPolicy = .live                            // only fresh configuration
/// configuration.readinessPolicy = .cachedOrLive                    // the default
/// configuration.readinessPolicy = .degraded(deadline: .seconds(3)) // never hang at launch
/// ```
public struct ReadinessPolicy: Sendable, Hashable, CustomStringConvertible {
    enum Kind: Hashable {
        case live
        case cachedOrLive
        case degraded(deadline: Duration?)
    }

    let kind: Kind

    /// Ready only from a live fetch: the initial and cached configurations are not applied (the
    /// cache is still written).
    public static let live = ReadinessPolicy(kind: .live)

    /// Ready from the initial configuration or the cache when there is one, otherwise from the
    /// first live fetch: the default.
    ///
    /// Live fetches follow and are announced as updates.
    public static let cachedOrLive = ReadinessPolicy(kind: .cachedOrLive)

    /// Ready *degraded*, without a configuration, when the first fetch fails and nothing else made
    /// the SDK ready, so that an app never hangs at launch.
    ///
    /// As ``cachedOrLive``; and when neither an initial nor a cached configuration exists, ready
    /// degraded after the first failed fetch, or when `deadline` passes first. A later successful
    /// fetch is announced as an update.
    ///
    /// - Parameter deadline: How long to wait for the first configuration at most, on the
    ///   lifecycle's clock; `nil` waits for the first attempt to fail.
    /// - Returns: The policy.
    public static func degraded(deadline: Duration? = nil) -> ReadinessPolicy {
        ReadinessPolicy(kind: .degraded(deadline: deadline))
    }

    /// Whether the initial and cached configurations may make the SDK ready.
    var usesStoredConfigs: Bool { kind != .live }

    /// Whether a failed first attempt makes the SDK ready degraded.
    var resolvesDegraded: Bool {
        if case .degraded = kind { return true }
        return false
    }

    /// The policy's name, for logs.
    public var description: String {
        switch kind {
        case .live: "live"
        case .cachedOrLive: "cached or live"
        case .degraded(let deadline?): "degraded after \(deadline)"
        case .degraded(nil): "degraded after the first failure"
        }
    }
}

/// Something the app's lifecycle tells a configuration lifecycle, from an app-lifecycle hook.
///
/// On Apple platforms the client forwards UIKit's foreground and low-power notifications itself;
/// elsewhere, or with your own hooks, call ``ConfigLifecycle/handle(_:)``.
public enum AppLifecycleEvent: Sendable, Hashable {
    /// The app came to the foreground: a stale configuration is refreshed.
    case willEnterForeground
    /// The app went to the background.
    case didEnterBackground
    /// Low power mode was turned on or off: periodic refreshes and retries pause while it is on,
    /// once the SDK is ready, and one that fell due meanwhile runs as soon as it goes off.
    ///
    /// It never holds the first fetch, a retry that readiness waits for, the degraded deadline or
    /// a refresh on demand, so it may be reported before the lifecycle starts.
    case lowPowerModeChanged(isEnabled: Bool)
}
