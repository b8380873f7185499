import Dispatch
import Foundation

#if canImport(FoundationNetworking)
    import FoundationNetworking
#endif

/// One request through `URLSession`, as an `async` call that ends at the first of: the response,
/// the caller's cancellation, or the deadline.
///
/// `URLSession.data(for:)` would do, but on Linux (swift-corelibs-foundation) cancelling it is
/// unsafe: its cancellation handler calls `URLSessionTask.cancel()`, which waits on the session's
/// queue while the Swift runtime holds the task's lock, so a response arriving at that moment
/// deadlocks both; and a cancel that crosses a completing transfer can crash the session
/// ("Trying to access a behaviour for a task that in not in the registry"). Both were seen in this
/// package's tests. So this bridge never calls into `URLSession` from a cancellation handler:
/// cancellation and the deadline resume the caller at once, and on Linux the transfer is abandoned
/// rather than cancelled (it ends by `URLSession`'s own timeout and its result is dropped). On
/// Apple platforms it is cancelled as well, from a dispatch queue.
enum HTTPTransfer {
    /// Runs `request` on `session`, within `timeout` overall.
    ///
    /// - Throws: `CancellationError` when the calling task is cancelled, ``ConfigFetchError`` with
    ///   ``ConfigFetchError/Code/transport`` when the deadline passes first, or the transport error
    ///   `URLSession` reports.
    static func run(
        _ request: URLRequest,
        on session: URLSession,
        timeout: TimeInterval
    ) async throws -> (Data, URLResponse) {
        try Task.checkCancellation()
        let outcome = Outcome()
        return try await withTaskCancellationHandler {
            try await withCheckedThrowingContinuation { continuation in
                let task = session.dataTask(with: request) { data, response, error in
                    if let data, let response {
                        outcome.finish(with: .success((data, response)))
                    } else {
                        // An empty `userInfo` built with `init()`: the default, a literal, costs a
                        // dictionary built from a list.
                        outcome.finish(with: .failure(error ?? URLError(.badServerResponse, userInfo: .init())))
                    }
                }
                guard outcome.start(continuation, task: task) else { return }
                task.resume()
                outcome.armDeadline(after: timeout)
            }
        } onCancel: {
            outcome.finish(with: .failure(CancellationError()), stopping: true)
        }
    }

    /// The transfer's state: whichever of response, cancellation and deadline comes first wins.
    private final class Outcome: Sendable {
        /// The call's state: the caller's continuation and the transfer while it runs, and once it
        /// ended, its result until the caller had it.
        ///
        /// A tuple, so that it needs no value witnesses of its own: idle is no continuation and not
        /// ended; running, a continuation and a task; finished, ended.
        private typealias State = (
            continuation: CheckedContinuation<(Data, URLResponse), any Error>?, task: URLSessionDataTask?,
            ended: Bool, result: Result<(Data, URLResponse), any Error>?
        )

        private let state = LockedValue<State>((nil, nil, false, nil))
        /// The deadline's timer, cancelled when the call ends first so that it neither fires nor
        /// keeps this object alive until the deadline.
        private let deadline = LockedValue<DeadlineTimer?>(nil)

        /// A dispatch timer, which is safe to cancel from any thread.
        private final class DeadlineTimer: @unchecked Sendable {
            // @unchecked: dispatch sources are thread-safe; the reference never changes.
            let source: any DispatchSourceTimer
            init(_ source: any DispatchSourceTimer) { self.source = source }
        }

        /// Ends the call with a transport error after `timeout`, unless it has ended by then.
        func armDeadline(after timeout: TimeInterval) {
            // Under the state's lock, so that a call that has already ended arms nothing (a
            // dispatch source must not be released suspended). The timer's handler takes the lock
            // on another thread; `finish` never holds it while it takes `deadline`'s.
            state.withLock { state in
                if state.ended { return }
                let timer = DispatchSource.makeTimerSource(queue: .global())
                timer.schedule(deadline: .now() + timeout)
                timer.setEventHandler { [self] in
                    finish(
                        with: .failure(
                            ConfigFetchError(code: .transport, reason: "no complete response within \(timeout) seconds")
                        ),
                        stopping: true
                    )
                }
                deadline.withLock { $0 = DeadlineTimer(timer) }
                timer.resume()
            }
        }

        /// Records the continuation; returns `false` (having resumed it) if the call already ended.
        func start(_ continuation: CheckedContinuation<(Data, URLResponse), any Error>, task: URLSessionDataTask)
            -> Bool
        {
            let early = state.withLock { state -> Result<(Data, URLResponse), any Error>? in
                guard state.ended else {
                    state.continuation = continuation
                    state.task = task
                    return nil
                }
                defer { state.result = nil }
                return state.result ?? .failure(CancellationError())
            }
            guard let early else { return true }
            continuation.resume(with: early)
            return false
        }

        /// Ends the call with `result` unless it has ended; `stopping` also stops the transfer
        /// where that is safe.
        func finish(with result: Result<(Data, URLResponse), any Error>, stopping: Bool = false) {
            let running = state.withLock {
                state -> (CheckedContinuation<(Data, URLResponse), any Error>, URLSessionDataTask)? in
                if state.ended { return nil }
                state.ended = true
                guard let continuation = state.continuation, let task = state.task else {
                    state.result = result
                    return nil
                }
                state.continuation = nil
                state.task = nil
                return (continuation, task)
            }
            guard let (continuation, task) = running else { return }
            deadline.withLock { timer in
                timer?.source.cancel()
                timer = nil
            }
            continuation.resume(with: result)
            #if !canImport(FoundationNetworking)
                // Not from the caller's thread: that may be a cancellation handler, which runs
                // under the runtime's lock on the task.
                if stopping { DispatchQueue.global().async { task.cancel() } }
            #else
                _ = (task, stopping)
            #endif
        }
    }
}
