/// A caller of ``BusStorage/flush()`` or ``BusStorage/off(_:)`` waiting on the bus: its
/// continuation, and whether its task was cancelled before it could wait.
///
/// Made before the caller suspends, so that a cancellation handler can name it (its identity is the
/// waiter's id). Cancellation lands in one of three states: before the waiter waits (it is
/// remembered, and the waiter returns as soon as it would start waiting), while it waits (it is
/// removed from wherever it waits and resumed), or after it was resumed (nothing to do). So it is
/// resumed exactly once, and leaves nothing behind.
final class BusWaiter: @unchecked Sendable {
    // @unchecked: only touched under the bus's lock.

    enum State {
        /// Made, not waiting yet.
        case starting
        /// Suspended on this continuation.
        case waiting(CheckedContinuation<Void, Never>)
        /// Its task was cancelled before it waited: it must not start.
        case cancelled
        /// Resumed, or returned without waiting.
        case done
    }

    var state = State.starting
    /// For a flush: how many lanes it still waits for.
    var remaining = 0

    /// Whether its task was cancelled before it started waiting.
    var isCancelled: Bool {
        if case .cancelled = state { true } else { false }
    }

    /// Whether it is suspended, waiting to be resumed.
    var isWaiting: Bool {
        if case .waiting = state { true } else { false }
    }

    /// Starts waiting on `continuation`.
    func wait(on continuation: CheckedContinuation<Void, Never>) {
        state = .waiting(continuation)
    }

    /// Ends the wait: the continuation to resume after unlocking, if it was waiting.
    func finish() -> CheckedContinuation<Void, Never>? {
        guard case .waiting(let continuation) = state else { return nil }
        state = .done
        return continuation
    }

    /// Records that its task was cancelled.
    ///
    /// - Returns: The continuation to resume after unlocking if it was waiting (the caller also
    ///   removes it from where it waits); `nil` otherwise, having remembered the cancellation if it
    ///   had not started.
    func cancel() -> CheckedContinuation<Void, Never>? {
        switch state {
        case .starting:
            state = .cancelled
            return nil
        case .waiting:
            return finish()
        case .cancelled, .done:
            return nil
        }
    }
}
