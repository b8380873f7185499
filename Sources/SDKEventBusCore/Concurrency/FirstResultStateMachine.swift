/// The transitions of ``FirstResult``: plain synchronous state, generic over the waiter and the
/// task handles, so that tests play every interleaving without tasks.
///
/// ```
///          register          end
///  idle ─────────────▶ waiting ──────▶ ended
///    │                                   ▲
///    └──── end (cancelled early) ────────┘
/// ```
///
/// The first ``end()`` wins. One that comes before ``register(_:)`` is remembered: the registration
/// then gets ``Registration/resumeCancelled`` and nothing starts. ``end()`` hands back every task
/// started so far to cancel, and a task started after the end is handed back to cancel at once.
struct FirstResultStateMachine<Waiter, Handle> {
    /// What a registering waiter must do.
    enum Registration: Equatable {
        /// Start the work and wait.
        case start
        /// Resume at once with cancellation: the wait ended before it registered.
        case resumeCancelled
    }

    fileprivate enum State {
        case idle
        case waiting(Waiter)
        case ended
    }

    private var state = State.idle
    private var handles: [Handle] = []

    /// Whether the wait has ended.
    var hasEnded: Bool {
        if case .ended = state { return true }
        return false
    }

    /// How many started tasks are held, to cancel when the wait ends.
    var handleCount: Int { handles.count }

    /// Registers the waiter.
    mutating func register(_ waiter: Waiter) -> Registration {
        switch state {
        case .idle:
            state = .waiting(waiter)
            return .start
        case .waiting:
            preconditionFailure("a race has one waiter")
        case .ended:
            return .resumeCancelled
        }
    }

    /// Records a task that works for the wait.
    ///
    /// - Returns: The task, to cancel at once, when the wait has already ended.
    @discardableResult
    mutating func started(_ handle: Handle) -> Handle? {
        if hasEnded { return handle }
        handles.append(handle)
        return nil
    }

    /// Ends the wait, unless it has ended.
    ///
    /// - Returns: The waiter to resume (`nil` when there is none yet: the end is remembered for
    ///   its registration), and the tasks to cancel; `nil` when the wait had already ended.
    mutating func end() -> (waiter: Waiter, cancel: [Handle])? {
        switch state {
        case .idle:
            state = .ended
            return nil
        case .waiting(let waiter):
            state = .ended
            defer { handles = [] }
            return (waiter, handles)
        case .ended:
            return nil
        }
    }
}

extension FirstResultStateMachine: Sendable where Waiter: Sendable, Handle: Sendable {}
extension FirstResultStateMachine.State: Sendable where Waiter: Sendable {}
