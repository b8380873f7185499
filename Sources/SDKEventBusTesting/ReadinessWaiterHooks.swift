public import Foundation
public import SDKEventBusCore

extension CatalogueConfigStore {
    /// Returns once at least `count` callers are suspended in ``CatalogueConfigStore/waitForReady()``,
    /// or readiness is decided: for tests that must know their waiters are waiting, instead of
    /// polling ``CatalogueConfigStore/waiterCount``.
    ///
    /// ```swift
    /// let waiter = Task { try await store.waitForReady() }
    /// try await store.waitForWaiters(1)
    /// waiter.cancel()   // the waiter is suspended: cancelling it tests the cancellation path
    /// ```
    ///
    /// - Parameters:
    ///   - count: How many suspended waiters to wait for.
    ///   - timeout: How long to wait at most, in seconds of real time.
    /// - Throws: ``WaitTimeoutError`` when fewer are suspended when the bound passes;
    ///   `CancellationError` when the task is cancelled first.
    public nonisolated func waitForWaiters(
        _ count: Int, within timeout: TimeInterval = WaitTimeoutError.defaultTimeout
    ) async throws {
        try await waitForWaiters(count, within: timeout) { waiting in
            WaitTimeoutError(
                expected: "\(count) caller(s) waiting for readiness", observed: "\(waiting)", timeout: timeout)
        }
    }
}

extension CatalogueClient {
    /// Returns once at least `count` callers are suspended in ``CatalogueClient/ready()``, or
    /// readiness is decided: a hook for tests, instead of polling.
    ///
    /// - Parameters:
    ///   - count: How many suspended callers to wait for.
    ///   - timeout: How long to wait at most, in seconds of real time.
    /// - Throws: ``WaitTimeoutError`` when fewer are suspended when the bound passes;
    ///   `CancellationError` when the task is cancelled first.
    public func waitForReadyWaiters(
        _ count: Int, within timeout: TimeInterval = WaitTimeoutError.defaultTimeout
    ) async throws {
        try await lifecycle.store.waitForWaiters(count, within: timeout)
    }
}

extension CatalogueConfigStore {
    /// Returns how the store became ready, or throws when `timeout` passes first on a test clock.
    ///
    /// The test advances the clock past the deadline to time the wait out:
    ///
    /// ```swift
    /// let waiter = Task { try await store.waitForReady(timeout: 2, clock: clock) }
    /// try await clock.advanceToNextDeadline()   // ReadinessError.timedOut(after: 2)
    /// ```
    ///
    /// - Parameters:
    ///   - timeout: How long to wait, in seconds on `clock`.
    ///   - clock: The test clock that measures `timeout`.
    /// - Returns: How the store became ready.
    /// - Throws: ``SDKEventBusCore/ReadinessError/timedOut(after:)`` when the deadline passes first,
    ///   and as ``SDKEventBusCore/CatalogueConfigStore/waitForReady()`` otherwise.
    @discardableResult
    public nonisolated func waitForReady(timeout: TimeInterval, clock: TestClock) async throws -> Readiness {
        try await waitForReady(timeout: timeout, on: clock)
    }
}

extension CatalogueClient {
    /// Returns how the client became ready, or throws when `timeout` passes first on a test clock.
    ///
    /// - Parameters:
    ///   - timeout: How long to wait, in seconds on `clock`.
    ///   - clock: The test clock that measures `timeout`.
    /// - Returns: How the client became ready.
    /// - Throws: ``SDKEventBusCore/ReadinessError/timedOut(after:)`` when the deadline passes first,
    ///   and as ``SDKEventBusCore/CatalogueClient/ready()`` otherwise.
    @discardableResult
    public func ready(timeout: TimeInterval, clock: TestClock) async throws -> Readiness {
        try await lifecycle.store.waitForReady(timeout: timeout, clock: clock)
    }
}
