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

    /// Creates a configuration.
    ///
    /// - Parameters:
    ///   - refreshInterval: How long after a successful fetch the SDK fetches again.
    ///   - retryPolicy: How long the SDK waits after failed fetches.
    ///   - clock: The clock every wait of the lifecycle uses.
    ///   - diagnostics: Called with each step of the lifecycle.
    public init(
        refreshInterval: Duration? = .seconds(300),
        retryPolicy: RetryPolicy = RetryPolicy(),
        clock: any Clock<Duration> = ContinuousClock(),
        diagnostics: (@Sendable (LifecycleDiagnostic) -> Void)? = nil
    ) {
        self.refreshInterval = refreshInterval
        self.retryPolicy = retryPolicy
        self.clock = clock
        self.diagnostics = diagnostics
    }
}
