public import Foundation

/// How a configuration lifecycle loads, refreshes and becomes ready: the settings of the
/// ``CatalogClient`` that runs it.
///
/// ```swift
/// var configuration = SDKConfiguration()
/// configuration.refreshInterval = 60   // seconds
/// configuration.retryPolicy = RetryPolicy(initialDelay: 0.5)
/// configuration.readinessPolicy = .degraded()   // never hang at launch when offline
/// let sdk = SDKClient(configuration: configuration, fetchService: service)
/// ```
public struct LifecycleConfiguration<Config: RemoteConfig>: Sendable {
    /// The shortest refresh interval: 1 s.
    ///
    /// Shorter ones are raised to it, so that a misconfigured interval cannot hammer the
    /// configuration server.
    static var minimumRefreshInterval: TimeInterval { 1 }

    /// `interval`, raised to ``minimumRefreshInterval`` when shorter or not a number.
    private static func atLeastMinimum(_ interval: TimeInterval) -> TimeInterval {
        interval >= minimumRefreshInterval ? interval : minimumRefreshInterval
    }

    /// How long after a successful fetch the lifecycle fetches again, in seconds; `nil` fetches only
    /// until the first success, and after that only on demand (``CatalogClient/refreshNow()``, or
    /// a stale configuration with ``timeToLive``).
    ///
    /// At least 1 s: a shorter one, or one that is not a number, is raised to it.
    public var refreshInterval: TimeInterval? {
        didSet { refreshInterval = refreshInterval.map(Self.atLeastMinimum) }
    }
    /// Whether the lifecycle fetches as soon as it starts (the default), or only refreshes.
    ///
    /// `false` is for an SDK that loads its first configuration by itself (bundled, pushed, or from
    /// a fetch of its own) and hands it to the store with
    /// ``CatalogConfigStore/setConfig(_:from:fetchedAt:)``: the lifecycle then waits for a first
    /// configuration (that one, or the cache's or ``initialConfig`` as the readiness policy allows)
    /// and refreshes every ``refreshInterval`` from then on. A refresh asked for
    /// (``CatalogClient/refreshNow()``) runs at once either way.
    public var fetchesOnStart = true
    /// How long the lifecycle waits after failed fetches.
    public var retryPolicy: RetryPolicy
    /// When `ready()` returns: see ``ReadinessPolicy``.
    public var readinessPolicy: ReadinessPolicy
    /// How long a configuration stays fresh, in seconds, counted from when it was fetched, whoever
    /// set it: the lifecycle, or the SDK through ``CatalogConfigStore/setConfig(_:from:fetchedAt:)``
    /// (a configuration of unknown age, such as a bundled one, is stale).
    ///
    /// Once it is older, reading the client's configuration or the app returning to the foreground
    /// *requests* a refresh: requests coalesce into one, which runs as soon as the schedule allows a
    /// fetch — never during a backoff after a failure (the retry serves it), never while refreshing
    /// is paused once the SDK is ready, never sooner than 100 ms after the previous fetch. Reading the
    /// configuration is never a network request of its own. `nil` (the default) never requests; zero
    /// or a negative value makes every configuration stale at once; `nan` is `nil`.
    public var timeToLive: TimeInterval?
    /// The clock every wait of the lifecycle runs on.
    ///
    /// It times the refreshes, the backoff, the degraded deadline and the bound of a shutdown. Real
    /// time unless you set another: your SDK's own ``LifecycleClock``,
    /// or the testing library's `TestClock` in tests.
    ///
    /// The lifecycle measures its intervals (``refreshInterval``, ``timeToLive``, the retry
    /// policy's delays) on it, from the instant the lifecycle starts.
    public var clock: any LifecycleClock {
        get { (timer as? LifecycleClockTimer)?.base ?? timer }
        set { timer = newValue.nanosecondTimer }
    }
    /// ``clock``, read in nanoseconds: the package's own clocks directly, another through
    /// ``LifecycleClockTimer``.
    private(set) var timer: any TimerClock = SystemTimerClock()
    /// Called with each step of the lifecycle, on the lifecycle's task, before what the step causes
    /// (the listeners of an announcement, `ready()` returning).
    ///
    /// Keep it short: while it runs, the lifecycle waits (a shutdown stops waiting after its
    /// timeout, and reports ``ShutdownReport/Work/lifecycle``).
    public var diagnostics: (@Sendable (LifecycleDiagnostic) -> Void)?
    /// Where the lifecycle observes the app's foreground and low-power notifications on Apple
    /// platforms: the default center (the default), a center of the SDK's own, or `nil` for none.
    ///
    /// Set `nil` when the SDK observes the app's lifecycle itself and forwards what it learns with
    /// ``CatalogClient/handle(_:)``, so that nothing reacts twice; set the SDK's own center when its
    /// tests post the notifications. Low power mode is read from `ProcessInfo` when the lifecycle
    /// starts and when the center posts `NSProcessInfoPowerStateDidChange`, unless this is `nil`.
    /// Linux and Windows post none of these: there the SDK always forwards.
    public var notificationCenter: NotificationCenter? = .default
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
    public var initialConfig: Config? {
        get { initialConfigBox?.value }
        set { initialConfigBox = newValue.map(Boxed.init) }
    }
    /// The initial configuration, boxed, so that this struct's layout does not depend on its type:
    /// its value witnesses are then small fixed-layout ones rather than large generic ones.
    private(set) var initialConfigBox: Boxed<Config>?

    /// Creates a configuration.
    ///
    /// - Parameters:
    ///   - refreshInterval: How long after a successful fetch the lifecycle fetches again, in seconds.
    ///   - retryPolicy: How long the lifecycle waits after failed fetches.
    ///   - readinessPolicy: When `ready()` returns.
    ///   - timeToLive: How long a configuration stays fresh, in seconds.
    ///   - diagnostics: Called with each step of the lifecycle.
    ///   - cache: Where the last good configuration is kept between launches.
    ///   - initialConfig: A configuration to start from.
    public init(
        refreshInterval: TimeInterval? = 300,
        retryPolicy: RetryPolicy = RetryPolicy(),
        readinessPolicy: ReadinessPolicy = .cachedOrLive,
        timeToLive: TimeInterval? = nil,
        diagnostics: (@Sendable (LifecycleDiagnostic) -> Void)? = nil,
        cache: (any ConfigCache<Config>)? = nil,
        initialConfig: Config? = nil
    ) {
        self.refreshInterval = refreshInterval.map(Self.atLeastMinimum)
        self.retryPolicy = retryPolicy
        self.readinessPolicy = readinessPolicy
        self.timeToLive = timeToLive
        self.diagnostics = diagnostics
        self.cache = cache
        self.initialConfigBox = initialConfig.map(Boxed.init)
    }
}
