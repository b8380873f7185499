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

    // Idle: no waiter, not ended; waiting: a waiter; ended: `hasEnded`. Plain stored properties
    // rather than an enum with a generic payload, which would need value witnesses of its own; the
    // waiter boxed, so that the layout does not depend on its type and the witnesses stay small.
    private var waiter: Boxed<Waiter>?
    private var handles: [Handle] = []

    /// Whether the wait has ended.
    private(set) var hasEnded = false

    /// How many started tasks are held, to cancel when the wait ends.
    var handleCount: Int { handles.count }

    /// Registers the waiter.
    mutating func register(_ waiter: Waiter) -> Registration {
        if hasEnded { return .resumeCancelled }
        precondition(self.waiter == nil, "a race has one waiter")
        self.waiter = Boxed(waiter)
        return .start
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
        if hasEnded { return nil }
        hasEnded = true
        guard let waiter else { return nil }
        self.waiter = nil
        defer { handles = [] }
        return (waiter.value, handles)
    }
}

extension FirstResultStateMachine: Sendable where Waiter: Sendable, Handle: Sendable {}
