package import Foundation
package import SDKEventBusCore

/// A bounded wait for a test hook whose waiters, a ``BoundedWaiters``, live in the locked value.
extension LockedValue {
    /// Suspends until `isSatisfied` holds for the value, for a hook whose condition is the owner's
    /// own code and so may run under the lock.
    ///
    /// The owner takes the waiters whose condition holds (``BoundedWaiters/takeAll(where:)``) each
    /// time the value changes, and resumes them after releasing the lock.
    ///
    /// - Parameters:
    ///   - waiters: Where the value keeps the hook's waiters.
    ///   - condition: What the waiter waits for, as the owner's `takeAll` reads it.
    ///   - timeout: The bound, in seconds of real time.
    ///   - isSatisfied: Whether the condition holds now; runs under the lock.
    ///   - timeoutError: The error for a wait whose bound passed, from a copy of the value then;
    ///     runs outside the lock.
    /// - Throws: `timeoutError`'s error when the bound passes first; `CancellationError` when the
    ///   task is cancelled first.
    package func wait<Condition: Sendable>(
        on waiters: any WritableKeyPath<Value, BoundedWaiters<Condition>> & Sendable,
        for condition: Condition,
        within timeout: TimeInterval,
        isSatisfied: (inout Value) -> Bool,
        timeoutError: @escaping @Sendable (Value) -> any Error
    ) async throws {
        let id = withLock { $0[keyPath: waiters].makeID() }
        try await boundedWait(within: timeout) { continuation in
            let early = withLock { value -> Result<Void, any Error>? in
                if isSatisfied(&value) {
                    value[keyPath: waiters].discard(id)
                    return .success(())
                }
                return value[keyPath: waiters].register(id, condition, continuation).map { .failure($0) }
            }
            if let early { continuation.resume(with: early) }
        } end: { timedOut in
            // Copied under the lock, described after it.
            let error = timedOut ? timeoutError(withLock { $0 }) : CancellationError()
            withLock { $0[keyPath: waiters].end(id, with: error) }?.resume(throwing: error)
        }
    }
}
