/// The readiness gate behind ``ConfigStore``: waiters suspend on continuations that the first
/// configuration, a cancellation or shutdown resumes, each exactly once.
///
/// It is a lock around ``ReadinessStateMachine`` rather than actor state because a task's
/// cancellation handler runs synchronously, on whatever thread cancels it, and must be able to
/// resume that task's continuation promptly.
final class ReadinessGate: Sendable {
    typealias Continuation = CheckedContinuation<Void, any Error>

    private let machine = LockedValue(ReadinessStateMachine<Continuation>())

    /// Whether the first configuration has arrived (and the gate was not shut down).
    var isOpen: Bool { machine.withLock { $0.state == .ready } }

    /// Whether the gate was shut down.
    var isShutDown: Bool { machine.withLock { $0.state == .shutDown } }

    /// How many waiters are suspended now.
    var waiterCount: Int { machine.withLock { $0.waiterCount } }

    /// Returns when the gate opens.
    ///
    /// - Throws: `CancellationError` when the task is cancelled first; ``ReadinessError`` with code
    ///   ``ReadinessError/Code/shutDown`` when the gate is shut down first.
    func wait() async throws {
        // Fast path: no continuation when the outcome is known.
        switch machine.withLock({ $0.state }) {
        case .ready: return
        case .shutDown: throw ReadinessError.shutDown
        case .waiting: break
        }
        let id = machine.withLock { $0.makeWaiterID() }
        try await withTaskCancellationHandler {
            try await withCheckedThrowingContinuation { (continuation: Continuation) in
                switch machine.withLock({ $0.register(id, waiter: continuation) }) {
                case .suspend: break
                case .resumeReady: continuation.resume()
                case .resumeCancelled: continuation.resume(throwing: CancellationError())
                case .resumeShutDown: continuation.resume(throwing: ReadinessError.shutDown)
                }
            }
        } onCancel: {
            machine.withLock { $0.cancel(id) }?.resume(throwing: CancellationError())
        }
    }

    /// Opens the gate, runs `announce`, then resumes every waiter.
    ///
    /// Opening is one step under the lock, so a concurrent ``shutDown()`` either comes first (the
    /// gate stays shut, `announce` does not run) or after (the waiters have been taken and resume).
    ///
    /// - Parameter announce: Runs once the gate is open and before any waiter resumes: the store
    ///   sets its configuration and fires ``SystemEvent/ready`` there.
    /// - Returns: Whether this call opened the gate (`false` when it was already open or shut down).
    @discardableResult
    func open(announcing announce: () -> Void = {}) -> Bool {
        guard let waiters = machine.withLock({ $0.open() }) else { return false }
        announce()
        for waiter in waiters { waiter.resume() }
        return true
    }

    /// Shuts the gate: every waiter, and every later ``wait()``, fails with the shutdown error.
    func shutDown() {
        let waiters = machine.withLock { $0.shutDown() }
        for waiter in waiters { waiter.resume(throwing: ReadinessError.shutDown) }
    }
}
