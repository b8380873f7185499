public import SDKEventBusCore

extension CatalogueConfigStore {
    /// Returns once at least `count` callers are suspended in ``/SDKEventBusCore/CatalogueConfigStore/waitForReady()``,
    /// or readiness is decided: for tests that must know their waiters are waiting, instead of
    /// polling ``/SDKEventBusCore/CatalogueConfigStore/waiterCount``.
    ///
    /// ```swift
    /// let waiter = Task { try await store.waitForReady() }
    /// try await store.waitForWaiters(1)
    /// waiter.cancel()   // the waiter is suspended: cancelling it tests the cancellation path
    /// ```
    ///
    /// - Parameters:
    ///   - count: How many suspended waiters to wait for.
    ///   - timeout: How long to wait at most, in real time.
    /// - Throws: ``WaitTimeoutError`` when fewer are suspended when the bound passes;
    ///   `CancellationError` when the task is cancelled first.
    public nonisolated func waitForWaiters(
        _ count: Int, within timeout: Duration = WaitTimeoutError.defaultTimeout
    ) async throws {
        try await waitForWaiters(count, within: timeout) { waiting in
            WaitTimeoutError(
                expected: "\(count) caller(s) waiting for readiness", observed: "\(waiting)", timeout: timeout)
        }
    }
}

extension CatalogueClient {
    /// Returns once at least `count` callers are suspended in ``/SDKEventBusCore/CatalogueClient/ready()``, or
    /// readiness is decided: a hook for tests, instead of polling.
    ///
    /// - Parameters:
    ///   - count: How many suspended callers to wait for.
    ///   - timeout: How long to wait at most, in real time.
    /// - Throws: ``WaitTimeoutError`` when fewer are suspended when the bound passes;
    ///   `CancellationError` when the task is cancelled first.
    public func waitForReadyWaiters(
        _ count: Int, within timeout: Duration = WaitTimeoutError.defaultTimeout
    ) async throws {
        try await lifecycle.store.waitForWaiters(count, within: timeout)
    }
}
