@testable import SDKEventBus
@testable import SDKEventBusConfig
@testable import SDKEventBusCore
@testable import SDKEventBusWire

/// A suspension that lasts until ``resume()``, whatever happens to its task.
final class Suspension: Sendable {
    private let state = LockedValue<(resumed: Bool, waiter: CheckedContinuation<Void, Never>?)>((false, nil))

    func wait() async {
        await withCheckedContinuation { continuation in
            let now = state.withLock { state -> Bool in
                if state.resumed { return true }
                state.waiter = continuation
                return false
            }
            if now { continuation.resume() }
        }
    }

    func resume() {
        let waiter = state.withLock { state in
            state.resumed = true
            defer { state.waiter = nil }
            return state.waiter
        }
        waiter?.resume()
    }
}
