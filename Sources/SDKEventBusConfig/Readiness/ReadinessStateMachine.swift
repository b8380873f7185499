/// The transitions of the readiness gate: plain synchronous state, generic over what a waiter is
/// and what it is resumed with, so that tests drive it without tasks.
///
/// ```
///           decide(.ready)                    finishAnnouncing()
///  waiting ───────────────▶ announcing(ready) ──────────────────▶ ready ──┐
///     │  └─ decide(.failed) ▶ announcing(failed) ───────────────▶ failed ─┤ shutDown()
///     │                              │ shutDown()                          ▼
///     └──────────────────────────────┴──────────────────────────────▶ shutDown
/// ```
///
/// Deciding is two steps, so that the outcome is announced before anyone returns with it. The first
/// of ``decide(_:)`` decides for good: every waiter, present or later, gets that outcome until the
/// gate is shut down. While the gate announces it (the store fires its ready event, the lifecycle
/// reports its step), ``outcome`` reports it but a waiter that arrives still suspends; then
/// ``finishAnnouncing()`` hands over every waiter, those that came early and those that came during
/// the announcement. Every method returns what must happen to waiters; the caller does it after
/// releasing its lock. Each waiter id is resumed exactly once: by ``finishAnnouncing()``,
/// ``shutDown()``, ``cancel(_:)``, or at ``register(_:waiter:)`` when the outcome is already
/// announced. A cancellation that arrives before its waiter registers (the task was cancelled
/// while it was getting ready to wait) is remembered, and the registration then resumes at once.
///
/// The outcome is boxed (``Boxed``) in its enums, so that their layout does not depend on it and
/// their value witnesses stay small.
struct ReadinessStateMachine<Waiter, Outcome> {
    /// What decides the gate.
    enum Decision {
        case ready(Boxed<Outcome>)
        case failed(any Error)

        /// A ready decision with `outcome`.
        static func ready(_ outcome: Outcome) -> Self { .ready(Boxed(outcome)) }
    }

    enum State {
        case waiting
        /// Decided, and being announced: waiters still suspend.
        case announcing(Decision)
        /// Decided and announced: waiters resume at once.
        case decided(Decision)
        case shutDown
    }

    /// How a waiter that asks to wait must be resumed now, or that it must wait.
    enum Registration {
        case suspend
        case resumeReady(Boxed<Outcome>)
        case resumeFailed(any Error)
        case resumeCancelled
        case resumeShutDown
    }

    private(set) var state = State.waiting
    /// The suspended waiters, contiguous so that opening the gate is one pass over an array.
    private var waiters: [(id: UInt64, waiter: Waiter)] = []
    /// Where each suspended waiter is in `waiters`, so that a cancellation removes it in O(1).
    private var positions: [UInt64: Int] = [:]
    private var cancelledBeforeRegistration: Set<UInt64> = []
    private var nextWaiterID: UInt64 = 0

    /// The number of waiters suspended now.
    var waiterCount: Int { waiters.count }

    /// The number of cancellations remembered for waiters that have not registered yet.
    var pendingCancellationCount: Int { cancelledBeforeRegistration.count }

    /// Whether the gate is still waiting for its outcome.
    var isWaiting: Bool {
        if case .waiting = state { return true }
        return false
    }

    /// The outcome, once the gate was decided ready, from the start of its announcement (and until
    /// it is shut down).
    var outcome: Outcome? {
        switch state {
        case .announcing(.ready(let outcome)), .decided(.ready(let outcome)): outcome.value
        default: nil
        }
    }

    /// Whether waiters still suspend: nothing is decided, or the decision is being announced.
    private var suspendsWaiters: Bool {
        switch state {
        case .waiting, .announcing: true
        case .decided, .shutDown: false
        }
    }

    /// Reserves an id for a waiter that is about to register.
    mutating func makeWaiterID() -> UInt64 {
        defer { nextWaiterID += 1 }
        return nextWaiterID
    }

    /// The registration a waiter would get now if the outcome is known and announced: the fast
    /// path.
    var settledRegistration: Registration? {
        switch state {
        case .waiting, .announcing: nil
        case .decided(.ready(let outcome)): .resumeReady(outcome)
        case .decided(.failed(let error)): .resumeFailed(error)
        case .shutDown: .resumeShutDown
        }
    }

    /// Registers a waiter, or tells the caller to resume it at once.
    mutating func register(_ id: UInt64, waiter: Waiter) -> Registration {
        if let settled = settledRegistration { return settled }
        if cancelledBeforeRegistration.remove(id) != nil { return .resumeCancelled }
        positions[id] = waiters.count
        waiters.append((id, waiter))
        return .suspend
    }

    /// Forgets a cancelled waiter.
    ///
    /// - Returns: The waiter to resume with `CancellationError`, or `nil` when it has already been
    ///   resumed or has not registered yet (it then resumes at registration).
    mutating func cancel(_ id: UInt64) -> Waiter? {
        guard suspendsWaiters else { return nil }
        guard let position = positions.removeValue(forKey: id) else {
            cancelledBeforeRegistration.insert(id)
            return nil
        }
        // Swap-remove: the last waiter takes the cancelled one's place.
        let cancelled = waiters[position].waiter
        let last = waiters.removeLast()
        if position < waiters.count {
            waiters[position] = last
            positions[last.id] = position
        }
        return cancelled
    }

    /// Decides the gate, which then announces the decision: waiters keep suspending until
    /// ``finishAnnouncing()``.
    ///
    /// - Returns: Whether this call decided (`false` when the gate was already decided, or shut
    ///   down).
    mutating func decide(_ decision: Decision) -> Bool {
        guard isWaiting else { return false }
        state = .announcing(decision)
        return true
    }

    /// Ends the announcement of the decision.
    ///
    /// - Returns: The decision and every waiter, to resume with it (in the order they registered,
    ///   apart from cancellations); `nil` when no decision was being announced (the gate was shut
    ///   down meanwhile, and those waiters were resumed with that).
    mutating func finishAnnouncing() -> (decision: Decision, waiters: [Waiter])? {
        guard case .announcing(let decision) = state else { return nil }
        state = .decided(decision)
        return (decision, takeWaiters())
    }

    /// Shuts the gate for good.
    ///
    /// - Returns: Every waiter, to resume with the shutdown error.
    mutating func shutDown() -> [Waiter] {
        state = .shutDown
        return takeWaiters()
    }

    private mutating func takeWaiters() -> [Waiter] {
        let resumed = waiters.map(\.waiter)
        waiters = []
        positions = [:]
        cancelledBeforeRegistration = []
        return resumed
    }
}

extension ReadinessStateMachine: Sendable where Waiter: Sendable, Outcome: Sendable {}
extension ReadinessStateMachine.State: Sendable where Outcome: Sendable {}
extension ReadinessStateMachine.Decision: Sendable where Outcome: Sendable {}
