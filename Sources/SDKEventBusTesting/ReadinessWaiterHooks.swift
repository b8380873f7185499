public import Foundation
@_spi(Testing) public import SDKEventBusConfig
import SDKEventBusCoreTesting

extension CatalogConfigStore {
    /// Returns once at least `count` callers are suspended in ``/SDKEventBusConfig/CatalogConfigStore/waitForReady(timeout:clock:)``,
    /// or readiness is decided: for tests that must know their waiters are waiting, instead of
    /// polling.
    ///
    /// ```swift
    /// let waiter = Task { try await store.waitForReady() }
    /// try await store.waitForReadyWaiters(1)
    /// waiter.cancel()   // the waiter is suspended: cancelling it tests the cancellation path
    /// ```
    ///
    /// - Parameters:
    ///   - count: How many suspended waiters to wait for.
    ///   - timeout: How long to wait at most, in seconds of real time.
    /// - Throws: ``/documentation/SDKEventBusCoreTesting/WaitTimeoutError`` when fewer are suspended when the bound
    ///   passes; `CancellationError` when the task is cancelled first.
    public nonisolated func waitForReadyWaiters(
        _ count: Int, within timeout: TimeInterval = WaitTimeoutError.defaultTimeout
    ) async throws {
        // The testing library is the only one that installs a watcher.
        let watch = readinessWatcher { ReadinessWaiterWatch() } as! ReadinessWaiterWatch
        try await watch.wait(for: count, within: timeout) { self.readinessWaiters }
    }
}

extension CatalogClient {
    /// Returns once at least `count` callers are suspended in ``/SDKEventBusConfig/CatalogClient/ready(timeout:clock:)``, or
    /// readiness is decided: a hook for tests, instead of polling.
    ///
    /// - Parameters:
    ///   - count: How many suspended callers to wait for.
    ///   - timeout: How long to wait at most, in seconds of real time.
    /// - Throws: ``/documentation/SDKEventBusCoreTesting/WaitTimeoutError`` when fewer are suspended when the bound
    ///   passes; `CancellationError` when the task is cancelled first.
    public func waitForReadyWaiters(
        _ count: Int, within timeout: TimeInterval = WaitTimeoutError.defaultTimeout
    ) async throws {
        let watch = readinessWatcher { ReadinessWaiterWatch() } as! ReadinessWaiterWatch
        try await watch.wait(for: count, within: timeout) { self.readinessWaiters }
    }
}

/// The callers of a store's `waitForReadyWaiters`, each with the count it waits for: resumed when that
/// many callers wait for readiness, or readiness is decided.
///
/// Installed on the store's readiness gate by the first `waitForReadyWaiters`, and told by the gate each
/// time a caller has started waiting and once readiness is decided.
private final class ReadinessWaiterWatch: ReadinessGateWatcher {
    private let waiters = LockedValue(BoundedWaiters<Int>())

    func waitersChanged(_ now: ReadinessWaiters) {
        let ready = waiters.withLock { $0.takeAll { now.isDecided || $0 <= now.count } }
        for waiter in ready { waiter.resume() }
    }

    /// Returns once at least `count` callers wait for readiness, or readiness is decided.
    ///
    /// - Parameters:
    ///   - count: How many suspended callers to wait for.
    ///   - timeout: How long to wait at most, in seconds of real time.
    ///   - read: Reads the waiters now, for the check after registering and the timeout's message.
    /// - Throws: ``/documentation/SDKEventBusCoreTesting/WaitTimeoutError`` when fewer wait when the bound passes;
    ///   `CancellationError` when the task is cancelled first.
    func wait(
        for count: Int, within timeout: TimeInterval, reading read: @escaping @Sendable () -> ReadinessWaiters
    ) async throws {
        let id = waiters.withLock { $0.makeID() }
        try await boundedWait(within: timeout) { continuation in
            if let ended = waiters.withLock({ $0.register(id, count, continuation) }) {
                continuation.resume(throwing: ended)
            } else {
                // Registered first, then checked: a caller that started waiting meanwhile is seen.
                waitersChanged(read())
            }
        } end: { [waiters] didTimeOut in
            let error: any Error =
                didTimeOut
                ? WaitTimeoutError(
                    expected: "\(count) caller(s) waiting for readiness", observed: "\(read().count)",
                    timeout: timeout)
                : CancellationError()
            waiters.withLock { $0.end(id, with: error) }?.resume(throwing: error)
        }
    }
}
