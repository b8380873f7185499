/// How an ``SDKClient`` loads and refreshes its configuration.
///
/// ```swift
/// var configuration = SDKConfiguration()
/// configuration.refreshInterval = .seconds(60)
/// configuration.retryPolicy = RetryPolicy(initialDelay: .milliseconds(500))
/// let sdk = SDKClient(configuration: configuration, fetchService: service)
/// ```
public struct SDKConfiguration: Sendable {
    /// How long after a successful fetch the SDK fetches again; `nil` fetches only until the first
    /// success.
    public var refreshInterval: Duration?
    /// How long the SDK waits after failed fetches.
    public var retryPolicy: RetryPolicy
    /// The clock every wait of the lifecycle uses: refreshes, backoff and ``SDKClient/ready(timeout:)``.
    ///
    /// Tests pass a manual clock so that they run instantly.
    public var clock: any Clock<Duration>
    /// Called with each step of the lifecycle, on the lifecycle's task; keep it short.
    public var diagnostics: (@Sendable (LifecycleDiagnostic) -> Void)?
    /// Where the last good configuration is kept between launches, if anywhere.
    ///
    /// At start the client becomes ready from the cached configuration (``SDKStatus/source`` says
    /// ``ConfigSource/cache``), then a live fetch that differs fires ``SystemEvent/configUpdated``.
    /// A corrupt or unreadable cache is ignored and reported, never applied.
    public var cache: (any ConfigCache)?
    /// A configuration to start from, for example defaults bundled with the app: the client is
    /// ready from it at once (``ConfigSource/injected``), and the cache and live fetches follow.
    public var initialConfig: ProjectConfig?

    /// Creates a configuration.
    ///
    /// - Parameters:
    ///   - refreshInterval: How long after a successful fetch the SDK fetches again.
    ///   - retryPolicy: How long the SDK waits after failed fetches.
    ///   - clock: The clock every wait of the lifecycle uses.
    ///   - diagnostics: Called with each step of the lifecycle.
    ///   - cache: Where the last good configuration is kept between launches.
    ///   - initialConfig: A configuration to start from.
    public init(
        refreshInterval: Duration? = .seconds(300),
        retryPolicy: RetryPolicy = RetryPolicy(),
        clock: any Clock<Duration> = ContinuousClock(),
        diagnostics: (@Sendable (LifecycleDiagnostic) -> Void)? = nil,
        cache: (any ConfigCache)? = nil,
        initialConfig: ProjectConfig? = nil
    ) {
        self.refreshInterval = refreshInterval
        self.retryPolicy = retryPolicy
        self.clock = clock
        self.diagnostics = diagnostics
        self.cache = cache
        self.initialConfig = initialConfig
    }
}
