import Dispatch
import Foundation

#if canImport(FoundationNetworking)
    import FoundationNetworking
#endif

/// One request through `URLSession`, as an `async` call that ends at the first of: the response
/// with its body, a body over the limit, the caller's cancellation, or the deadline.
///
/// The body is bounded as it arrives, not once it is whole: the transfer runs on the service's
/// ``HTTPTransferSession``, whose delegate hands it the response and then the body piece by piece.
/// A successful response whose `Content-Length` is over the limit is refused when its head arrives,
/// before any of the body is read; a body that passes the limit as it streams in (without a
/// `Content-Length`, or decompressed past it) is cut off there. Either way the caller is resumed at
/// once with ``ConfigFetchError/Code/bodyTooLarge`` and the transfer is cancelled, so a transfer
/// never holds more of a body than the limit. (A completion-handler task, or `URLSession.data(for:)`,
/// hands the body over whole: a misconfigured server's 2 GB file would take 2 GB of memory first.)
/// The body of any other status is not kept: its status says what went wrong.
///
/// `URLSession.data(for:)` would also be unsafe to cancel on Linux (swift-corelibs-foundation): its
/// cancellation handler calls `URLSessionTask.cancel()`, which waits on the session's queue while
/// the Swift runtime holds the task's lock, so a response arriving at that moment deadlocks both;
/// and a cancel that crosses a completing transfer can crash the session ("Trying to access a
/// behaviour for a task that in not in the registry"). Both were seen in this package's tests. So
/// this bridge never calls into `URLSession` from a cancellation handler: cancellation and the
/// deadline resume the caller at once, and on Linux the transfer is abandoned rather than cancelled
/// (it ends by `URLSession`'s own timeout and what it still brings is dropped). On Apple platforms
/// it is cancelled as well, from a dispatch queue. A body over the limit is cancelled on both, from a
/// dispatch queue too: on Linux the delegate runs on the session's own queue, which `cancel()` waits
/// for. There a fast transfer can keep that queue busy until it has ended (from the loopback
/// server, a 64 MB body usually arrived whole before the cancel took); what it still brings is
/// dropped piece by piece as it arrives, so it costs bandwidth, not memory.
enum HTTPTransfer {
    /// Runs `request` on `transfers`, within `timeout` overall, keeping at most `maximumBodySize`
    /// bytes of a successful response's body.
    ///
    /// - Returns: The body (empty for a status other than 2xx) and the response.
    /// - Throws: `CancellationError` when the calling task is cancelled, ``ConfigFetchError`` with
    ///   ``ConfigFetchError/Code/transport`` when the deadline passes first or with
    ///   ``ConfigFetchError/Code/bodyTooLarge`` for a body over the limit, or the transport error
    ///   `URLSession` reports.
    static func run(
        _ request: URLRequest,
        on transfers: HTTPTransferSession,
        timeout: TimeInterval,
        maximumBodySize: Int
    ) async throws -> (Data, URLResponse) {
        try Task.checkCancellation()
        let outcome = Outcome(limit: maximumBodySize, largestBody: transfers.largestBody)
        return try await withTaskCancellationHandler {
            try await withCheckedThrowingContinuation { continuation in
                let task = transfers.dataTask(with: request, reportingTo: outcome)
                guard outcome.start(continuation, task: task) else {
                    // Never resumed, so no transfer to cross: cancelling it ends it, and the session
                    // does not wait for it when it is invalidated.
                    task.cancel()
                    return
                }
                task.resume()
                outcome.armDeadline(after: timeout)
            }
        } onCancel: {
            outcome.finish(with: .failure(CancellationError()), stopping: .whereSafe)
        }
    }

    /// The error for a successful response's body over `limit`: `size` bytes, announced or
    /// received in all, or the bytes that had arrived when it was cut off.
    static func bodyTooLarge(statusCode: Int?, size: Int64, cutOff: Bool, limit: Int) -> ConfigFetchError {
        ConfigFetchError(
            code: .bodyTooLarge,
            statusCode: statusCode,
            reason: cutOff
                ? "the body has at least \(size) bytes (it was cut off there); the limit is \(limit)"
                : "the body has \(size) bytes; the limit is \(limit)"
        )
    }

    /// When ending a call stops its transfer too.
    enum Stopping {
        /// Never: the transfer has ended.
        case no
        /// On Apple platforms; on Linux the transfer is abandoned (see ``HTTPTransfer``).
        case whereSafe
        /// On every platform: the transfer brings a body nobody will keep.
        case always
    }

    /// One transfer's state, told of the response, the body and the end by the session's delegate.
    ///
    /// Whichever of the whole response, a body over the limit, cancellation and the deadline comes
    /// first wins.
    final class Outcome: Sendable {
        /// The call's state: the caller's continuation and the transfer while it runs; the response
        /// and the body kept so far.
        ///
        /// A tuple, so that it needs no value witnesses of its own: idle is no continuation and not
        /// ended; running, a continuation and a task; finished, ended. Only cancellation can end a
        /// call before it starts (its task is not resumed yet, its deadline not armed), so an early
        /// end needs no result kept.
        private typealias State = (
            continuation: CheckedContinuation<(Data, URLResponse), any Error>?, task: URLSessionDataTask?,
            ended: Bool, response: URLResponse?, keepsBody: Bool, body: Data, reserved: Int
        )

        private let state = LockedValue<State>((nil, nil, false, nil, true, Data(), 0))
        /// The deadline's timer, cancelled when the call ends first so that it neither fires nor
        /// keeps this object alive until the deadline.
        private let deadline = LockedValue<DeadlineTimer?>(nil)
        /// The most bytes of a body kept.
        private let limit: Int
        /// Where the call records the size of the body it held, if it is the largest yet.
        private let largestBody: LockedValue<Int>

        init(limit: Int, largestBody: LockedValue<Int>) {
            self.limit = max(limit, 0)
            self.largestBody = largestBody
        }

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
                        stopping: .whereSafe
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
            let started = state.withLock { state in
                if state.ended { return false }
                state.continuation = continuation
                state.task = task
                return true
            }
            if !started { continuation.resume(throwing: CancellationError()) }
            return started
        }

        /// Takes the response's head: refuses a successful one whose `Content-Length` is over the
        /// limit, and decides whether the body is kept.
        ///
        /// - Returns: Whether the session goes on with the transfer.
        func receive(_ response: URLResponse) -> URLSession.ResponseDisposition {
            let status = (response as? HTTPURLResponse)?.statusCode
            let length = response.expectedContentLength
            // A status other than 2xx says what went wrong without its body.
            let keepsBody = status.map { (200..<300).contains($0) } ?? true
            if keepsBody, length > Int64(limit) {
                let error = HTTPTransfer.bodyTooLarge(statusCode: status, size: length, cutOff: false, limit: limit)
                finish(with: .failure(error), stopping: .always)
                return .cancel
            }
            let goesOn = state.withLock { state in
                if state.ended { return false }
                state.response = response
                state.keepsBody = keepsBody
                if keepsBody, length > 0 { reserve(&state, Int(length)) }
                return true
            }
            return goesOn ? .allow : .cancel
        }

        /// Keeps the next piece of the body, or cuts the transfer off if it takes the body past the
        /// limit.
        func receive(_ data: Data) {
            // The status and the size, when the piece takes the body past the limit.
            let overflow = state.withLock { state -> (status: Int?, size: Int)? in
                guard !state.ended, state.keepsBody else { return nil }
                let size = state.body.count + data.count
                if size > limit { return ((state.response as? HTTPURLResponse)?.statusCode, size) }
                reserve(&state, size)
                state.body.append(data)
                return nil
            }
            if let (status, size) = overflow {
                let error = HTTPTransfer.bodyTooLarge(statusCode: status, size: Int64(size), cutOff: true, limit: limit)
                finish(with: .failure(error), stopping: .always)
            }
        }

        /// Ends the call as the transfer ended: with the response and the body kept, or `error`.
        func complete(with error: (any Error)?) {
            let kept = state.withLock { state -> (Data, URLResponse?)? in
                state.ended ? nil : (state.body, state.response)
            }
            guard let (body, response) = kept else { return }
            if let error {
                finish(with: .failure(error), stopping: .no)
            } else if let response {
                finish(with: .success((body, response)), stopping: .no)
            } else {
                // An empty `userInfo` built with `init()`: the default, a literal, costs a
                // dictionary built from a list.
                finish(with: .failure(URLError(.badServerResponse, userInfo: .init())), stopping: .no)
            }
        }

        /// Ends the call with `result` unless it has ended, lets go of the body, and stops the
        /// transfer as `stopping` says.
        ///
        /// A call that has not started (only cancellation ends one so early) is resumed by
        /// ``start(_:task:)`` instead, with `CancellationError`.
        func finish(with result: Result<(Data, URLResponse), any Error>, stopping: Stopping) {
            let running = state.withLock { state -> Running? in
                if state.ended { return nil }
                state.ended = true
                // That lock is never held while this one is taken.
                let size = state.body.count
                largestBody.withLock { $0 = max($0, size) }
                state.body = Data()
                state.response = nil
                guard let continuation = state.continuation, let task = state.task else { return nil }
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
            #if canImport(FoundationNetworking)
                let stops = stopping == .always
            #else
                let stops = stopping != .no
            #endif
            // Never from the caller's thread, which may be a cancellation handler (it runs under
            // the runtime's lock on the task), nor from the delegate's: on Linux that is the
            // session's own queue, which `cancel()` waits for.
            if stops { DispatchQueue.global().async { task.cancel() } }
        }

        /// The caller's continuation and the transfer, once the call has ended.
        private typealias Running = (
            continuation: CheckedContinuation<(Data, URLResponse), any Error>, task: URLSessionDataTask
        )

        /// Makes room for a body of `size` bytes, under the lock: at least doubling, never past the
        /// limit, so that the body's storage stays within the limit too.
        private func reserve(_ state: inout State, _ size: Int) {
            guard size > state.reserved else { return }
            state.reserved = min(limit, max(size, min(state.reserved, limit / 2) * 2, 16_384))
            state.body.reserveCapacity(state.reserved)
        }
    }
}
