import Foundation

/// The readiness gate behind a config store: waiters suspend on continuations that the outcome, a
/// cancellation or shutdown resumes, each exactly once.
///
/// It is a lock around ``ReadinessStateMachine`` rather than actor state because a task's
/// cancellation handler runs synchronously, on whatever thread cancels it, and must be able to
/// resume that task's continuation promptly.
final class ReadinessGate<Outcome: Sendable>: Sendable {
    typealias Continuation = CheckedContinuation<Outcome, any Error>

    private let machine = LockedValue(ReadinessStateMachine<Continuation, Outcome>())
    /// The testing library's watcher, once a test waits for waiters: told of every change.
    private let watcher = LockedValue<(any ReadinessGateWatcher)?>(nil)

    /// The outcome, once the gate was opened (from the start of its announcement, and until it is
    /// shut down).
    var outcome: Outcome? { machine.withLock { $0.outcome } }

    /// The outcome, once the gate was opened and that was announced: what ``wait()`` returns at
    /// once.
    var announcedOutcome: Outcome? {
        machine.withLock {
            if case .resumeReady(let outcome) = $0.settledRegistration { return outcome.value }
            return nil
        }
    }

    /// The outcome once it is settled: returned once the gate was opened and that was announced,
    /// thrown once the gate failed or was shut down; `nil` while undecided or announcing.
    ///
    /// - Throws: The error the gate failed with; ``ReadinessError/shutDown`` once it is shut down.
    func settledOutcome() throws -> Outcome? {
        guard let settled = machine.withLock({ $0.settledRegistration }) else { return nil }
        return try Self.result(of: settled)
    }

    /// Whether the gate is still waiting for its outcome.
    var isWaiting: Bool { machine.withLock { $0.isWaiting } }

    /// Whether the gate was shut down.
    var isShutDown: Bool {
        machine.withLock {
            if case .shutDown = $0.state { return true }
            return false
        }
    }

    /// How many waiters are suspended now, and whether the gate is decided: one reading.
    var waiters: ReadinessWaiters {
        machine.withLock { ReadinessWaiters(count: $0.waiterCount, isDecided: !$0.isWaiting) }
    }

    /// Returns the outcome once the gate opens.
    ///
    /// - Throws: `CancellationError` when the task is cancelled first; the error the gate failed
    ///   with; ``ReadinessError/shutDown`` when it is shut down.
    func wait() async throws -> Outcome {
        // Fast path: no continuation when the outcome is known.
        if let settled = machine.withLock({ $0.settledRegistration }) { return try Self.result(of: settled)! }
        let id = machine.withLock { $0.makeWaiterID() }
        return try await withTaskCancellationHandler {
            try await withCheckedThrowingContinuation { (continuation: Continuation) in
                let registration = machine.withLock { $0.register(id, waiter: continuation) }
                notifyWatchers()
                do {
                    if let outcome = try Self.result(of: registration) { continuation.resume(returning: outcome) }
                } catch {
                    continuation.resume(throwing: error)
                }
            }
        } onCancel: {
            machine.withLock { $0.cancel(id) }?.resume(throwing: CancellationError())
        }
    }

    /// What a registration resumes a waiter with: `nil` to suspend.
    private static func result(
        of registration: ReadinessStateMachine<Continuation, Outcome>.Registration
    ) throws -> Outcome? {
        switch registration {
        case .suspend: return nil
        case .resumeReady(let outcome): return outcome.value
        case .resumeFailed(let error): throw error
        case .resumeCancelled: throw CancellationError()
        case .resumeShutDown: throw ReadinessError.shutDown
        }
    }

    /// The gate's watcher, installed by the first call.
    ///
    /// Returns the watcher installed, or else installs the one `make` creates. The hook behind the
    /// testing library's `waitForReadyWaiters`: the watcher is told, outside the lock, each time a
    /// waiter has registered and each time the gate is decided.
    func watcher(orInstall make: () -> any ReadinessGateWatcher) -> any ReadinessGateWatcher {
        watcher.withLock { watcher in
            if let watcher { return watcher }
            let made = make()
            watcher = made
            return made
        }
    }

    /// Tells the watcher, if a test installed one, how many wait now: read after the change it
    /// follows, so no change goes unseen.
    private func notifyWatchers() {
        guard let watcher = watcher.withLock({ $0 }) else { return }
        watcher.waitersChanged(waiters)
    }

    /// Opens the gate with `outcome`, runs `announce`, then resumes every waiter.
    ///
    /// Opening is two steps. Deciding is one step under the lock, so a concurrent ``fail(_:)`` or
    /// ``shutDown()`` either comes first (the gate stays as they left it and `announce` does not
    /// run) or after. Then `announce` runs, and a ``wait()`` that arrives meanwhile suspends: no
    /// caller returns with the outcome before it has been announced. Then every waiter resumes.
    ///
    /// - Parameters:
    ///   - outcome: What every waiter returns.
    ///   - announce: Runs once the gate is decided and before any waiter resumes: the store fires its
    ///     ready event there.
    /// - Returns: Whether this call opened the gate.
    @discardableResult
    func open(_ outcome: Outcome, announcing announce: () -> Void = {}) -> Bool {
        decide(.ready(outcome), announcing: announce)
    }

    /// Fails the gate for good: every waiter, and every later ``wait()``, throws `error`.
    ///
    /// In two steps, as ``open(_:announcing:)``.
    ///
    /// - Parameters:
    ///   - error: What every waiter throws.
    ///   - announce: Runs once the gate has failed and before any waiter resumes.
    /// - Returns: Whether this call decided the gate (`false` when it was already open, failed or
    ///   shut down).
    @discardableResult
    func fail(_ error: any Error, announcing announce: () -> Void = {}) -> Bool {
        decide(.failed(error), announcing: announce)
    }

    private func decide(
        _ decision: ReadinessStateMachine<Continuation, Outcome>.Decision, announcing announce: () -> Void
    ) -> Bool {
        guard machine.withLock({ $0.decide(decision) }) else { return false }
        announce()
        // `nil` when a shutdown came during the announcement: it resumed the waiters.
        if let (decision, waiters) = machine.withLock({ $0.finishAnnouncing() }) {
            switch decision {
            case .ready(let outcome): for waiter in waiters { waiter.resume(returning: outcome.value) }
            case .failed(let error): for waiter in waiters { waiter.resume(throwing: error) }
            }
        }
        notifyWatchers()
        return true
    }

    /// Shuts the gate: every waiter, and every later ``wait()``, fails with the shutdown error.
    func shutDown() {
        let waiters = machine.withLock { $0.shutDown() }
        for waiter in waiters { waiter.resume(throwing: ReadinessError.shutDown) }
        notifyWatchers()
    }
}
