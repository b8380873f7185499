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
    static var minimumRefreshInterval: Duration { .seconds(1) }

    /// How long after a successful fetch the lifecycle fetches again; `nil` fetches only until the
    /// first success, and after that only on demand (``ConfigLifecycle/refreshNow()``, or a stale
    /// configuration with ``timeToLive``).
    ///
    /// At least 1 second: a shorter interval is raised to it.
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
    /// cached configuration at start (``ConfigSource/cache``), then a live fetch that differs
    /// is announced as an update. A corrupt or unreadable cache is ignored and reported, never
    /// applied; a corrupt one is then deleted (``ConfigCache/clear()``).
    public var cache: (any ConfigCache<Config>)?
    /// A configuration to start from, for example defaults bundled with the app: with
    /// ``ReadinessPolicy/cachedOrLive`` the lifecycle is ready from it at once
    /// (``ConfigSource/initial``), and the cache and live fetches follow.
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
