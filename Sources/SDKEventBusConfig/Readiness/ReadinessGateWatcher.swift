/// What the testing library installs on a store's readiness gate to hear of its waiters.
///
/// Test SPI (`@_spi(Testing) import SDKEventBusConfig`): install one with
/// ``CatalogConfigStore/readinessWatcher(orInstall:)``. The testing library's `waitForReadyWaiters(_:within:)`
/// is built on it; a test has no need of it otherwise.
@_spi(Testing) public protocol ReadinessGateWatcher: AnyObject, Sendable {
    /// A waiter has registered, or the gate was decided; called outside the gate's lock, on the
    /// thread where it happened.
    ///
    /// - Parameter waiters: How many wait, and whether readiness is decided, read after the change.
    func waitersChanged(_ waiters: ReadinessWaiters)
}

/// How many callers wait for readiness on a store, and whether readiness is decided: one reading.
///
/// Test SPI (`@_spi(Testing) import SDKEventBusConfig`), from
/// ``CatalogConfigStore/readinessWaiters`` and ``CatalogClient/readinessWaiters``.
@_spi(Testing) public struct ReadinessWaiters: Sendable, Equatable {
    /// How many callers are suspended waiting for readiness.
    public var count: Int
    /// Whether readiness is decided: ready, failed or shut down.
    public var isDecided: Bool

    /// Creates a reading.
    ///
    /// - Parameters:
    ///   - count: How many callers are suspended waiting for readiness.
    ///   - isDecided: Whether readiness is decided.
    public init(count: Int, isDecided: Bool) {
        self.count = count
        self.isDecided = isDecided
    }
}
