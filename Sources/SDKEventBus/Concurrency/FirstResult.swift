/// A suspension that the first of several parties ends: the operation's result, the waiting task's
/// cancellation, or a deadline.
///
/// Later ones are ignored.
///
/// For operations that may not honour cancellation (a fetch service that bridges a completion
/// handler, a `URLSession` transfer on Linux): the waiter resumes at once and the late result is
/// dropped.
final class FirstResult<Value: Sendable>: Sendable {
    private enum State {
        case idle
        case waiting(CheckedContinuation<Value, any Error>)
        /// Ended; the result is kept only until a waiter that arrives late takes it.
        case finished(Result<Value, any Error>?)
    }

    private let state = LockedValue<State>(.idle)

    /// Suspends until ``finish(_:)`` is first called, or the task is cancelled.
    ///
    /// - Parameter start: Starts the operation; runs once the waiter is registered.
    /// - Returns: The first result.
    /// - Throws: The first error, or `CancellationError` when the task is cancelled first.
    func wait(starting start: () -> Void) async throws -> Value {
        try await withTaskCancellationHandler {
            try await withCheckedThrowingContinuation { continuation in
                let early = state.withLock { state -> Result<Value, any Error>? in
                    guard case .finished(let result) = state else {
                        state = .waiting(continuation)
                        return nil
                    }
                    state = .finished(nil)
                    return result ?? .failure(CancellationError())
                }
                if let early {
                    continuation.resume(with: early)
                } else {
                    start()
                }
            }
        } onCancel: {
            finish(.failure(CancellationError()))
        }
    }

    /// Ends the wait with `result`, unless it has ended.
    ///
    /// - Returns: Whether this call ended it.
    @discardableResult
    func finish(_ result: Result<Value, any Error>) -> Bool {
        let waiting = state.withLock { state -> CheckedContinuation<Value, any Error>? in
            switch state {
            case .idle:
                state = .finished(result)
                return nil
            case .waiting(let continuation):
                state = .finished(nil)
                return continuation
            case .finished:
                return nil
            }
        }
        waiting?.resume(with: result)
        return waiting != nil
    }
}
