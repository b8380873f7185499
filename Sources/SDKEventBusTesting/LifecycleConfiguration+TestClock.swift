public import SDKEventBusConfig

extension LifecycleConfiguration {
    /// The test clock every wait of the lifecycle runs on, or `nil` when it runs on another clock
    /// (real time by default).
    ///
    /// Set it in tests, at every platform the package supports: the lifecycle's refreshes, backoff,
    /// degraded deadline and the bound of a client's shutdown then wait for the test to advance the
    /// clock, so that they run instantly and in order.
    ///
    /// ```swift
    /// let clock = TestClock()
    /// var settings = SDKConfiguration(refreshInterval: 60)
    /// settings.testClock = clock
    /// ```
    public var testClock: TestClock? {
        get { timer as? TestClock }
        set { timer = newValue ?? SystemTimerClock() }
    }
}
