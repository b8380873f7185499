/// The transitions of the readiness gate: plain synchronous state, generic over what a waiter is
/// and what it is resumed with, so that tests drive it without tasks.
///
/// ```
///            open(outcome)                 shutDown()
///  waiting ───────────────▶ ready ───────────────────▶ shutDown
///     │  └──── fail(error) ─▶ failed ─── shutDown() ──▶    ▲
///     └──────────────────────── shutDown() ────────────────┘
/// ```
///
/// The first of `open` and `fail` decides the outcome for good: every waiter, present or later,
/// gets that same outcome until the gate is shut down. Every method returns what must happen to
/// waiters; the caller does it after releasing its lock. Each waiter id is resumed exactly once: by
/// ``open(_:)``, ``fail(_:)``, ``shutDown()``, ``cancel(_:)``, or at ``register(_:waiter:)`` when
/// the outcome is already known. A cancellation that arrives before its waiter registers (the task
/// was cancelled while it was getting ready to wait) is remembered, and the registration then
/// resumes at once.
///
/// The outcome is boxed (``Boxed``) in its enums, so that their layout does not depend on it and
/// their value witnesses stay small.
struct ReadinessStateMachine<Waiter, Outcome> {
    enum State {
        case waiting
        case ready(Boxed<Outcome>)
        case failed(any Error)
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

    /// The outcome, once the gate opened (and until it is shut down).
    var outcome: Outcome? {
        if case .ready(let outcome) = state { return outcome.value }
        return nil
    }

    /// Reserves an id for a waiter that is about to register.
    mutating func makeWaiterID() -> UInt64 {
        defer { nextWaiterID += 1 }
        return nextWaiterID
    }

    /// The registration a waiter would get now if the outcome is known: the fast path.
    var settledRegistration: Registration? {
        switch state {
        case .waiting: nil
        case .ready(let outcome): .resumeReady(outcome)
        case .failed(let error): .resumeFailed(error)
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
        guard isWaiting else { return nil }
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

    /// Opens the gate with its outcome.
    ///
    /// - Returns: Every waiter, to resume with `outcome` (in the order they registered, apart from
    ///   cancellations); `nil` when the gate was not waiting (already decided, or shut down).
    mutating func open(_ outcome: Outcome) -> [Waiter]? {
        guard isWaiting else { return nil }
        state = .ready(Boxed(outcome))
        return takeWaiters()
    }

    /// Fails the gate for good with `error`.
    ///
    /// - Returns: Every waiter, to resume with `error`; `nil` when the gate was not waiting.
    mutating func fail(_ error: any Error) -> [Waiter]? {
        guard isWaiting else { return nil }
        state = .failed(error)
        return takeWaiters()
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
