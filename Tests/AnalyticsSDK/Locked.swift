import Foundation

/// A value guarded by a lock: the facade's state is small and synchronous, so a lock beats an actor.
// @unchecked: `value` is read and written only inside `withLock`, under `lock`.
final class Locked<Value: Sendable>: @unchecked Sendable {
    private let lock = NSLock()
    private var value: Value

    init(_ value: Value) {
        self.value = value
    }

    /// Runs `body` with the value, under the lock; `body` must not call back into anything that
    /// takes it.
    func withLock<Result>(_ body: (inout Value) -> Result) -> Result {
        lock.lock()
        defer { lock.unlock() }
        return body(&value)
    }
}
