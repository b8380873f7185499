public import Foundation
public import SDKEventBusConfig

extension CatalogConfigStore {
    /// Returns once at least `count` callers are suspended in ``/SDKEventBusConfig/CatalogConfigStore/waitForReady(timeout:clock:)``,
    /// or readiness is decided: for tests that must know their waiters are waiting, instead of
    /// polling.
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
        let watch = readinessWatcher {
            // Weakly: the store holds the watch.
            ReadinessWaiterWatch(reading: { [weak self] in (self?.waiterCount ?? 0, self?.isDecided ?? true) })
        }
        // The testing library is the only one that installs a watcher.
        try await (watch as! ReadinessWaiterWatch).wait(for: count, within: timeout)
    }
}

extension CatalogClient {
    /// Returns once at least `count` callers are suspended in ``/SDKEventBusConfig/CatalogClient/ready(timeout:clock:)``, or
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

/// The callers of a store's `waitForWaiters`, each with the count it waits for: resumed when that
/// many callers wait for readiness, or readiness is decided.
///
/// Installed on the store's readiness gate by the first `waitForWaiters`, and told by the gate each
/// time a caller has started waiting and once readiness is decided.
private final class ReadinessWaiterWatch: ReadinessGateWatcher {
    /// How many callers wait for readiness now, and whether readiness is decided.
    typealias Reading = @Sendable () -> (waiting: Int, isDecided: Bool)

    private let waiters = LockedValue(BoundedWaiters<Int>())
    private let read: Reading

    init(reading read: @escaping Reading) {
        self.read = read
    }

    func waitersChanged() {
        let (waiting, isDecided) = read()
        let ready = waiters.withLock { $0.takeAll { isDecided || $0 <= waiting } }
        for waiter in ready { waiter.resume() }
    }

    /// Returns once at least `count` callers wait for readiness, or readiness is decided.
    ///
    /// - Throws: ``WaitTimeoutError`` when fewer wait when the bound passes; `CancellationError`
    ///   when the task is cancelled first.
    func wait(for count: Int, within timeout: TimeInterval) async throws {
        let id = waiters.withLock { $0.makeID() }
        try await boundedWait(within: timeout) { continuation in
            if let ended = waiters.withLock({ $0.register(id, count, continuation) }) {
                continuation.resume(throwing: ended)
            } else {
                // Registered first, then checked: a caller that started waiting meanwhile is seen.
                waitersChanged()
            }
        } end: { [waiters, read] didTimeOut in
            let error: any Error =
                didTimeOut
                ? WaitTimeoutError(
                    expected: "\(count) caller(s) waiting for readiness", observed: "\(read().waiting)",
                    timeout: timeout)
                : CancellationError()
            waiters.withLock { $0.end(id, with: error) }?.resume(throwing: error)
        }
    }
}

extension CatalogConfigStore {
}

extension CatalogClient {
}
