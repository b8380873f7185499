import Foundation

#if canImport(FoundationNetworking)
    import FoundationNetworking
#endif

/// The `URLSession` an HTTP fetch service's transfers run on: made with the configuration of the
/// session the SDK gave, with a delegate of its own that hands each transfer its response and its
/// body piece by piece (``HTTPTransfer``), so that a body is bounded as it arrives.
///
/// A delegate is the only way to see a body before it is whole on every platform the package
/// supports: a per-task delegate needs iOS 15 / macOS 12 and swift-corelibs-foundation ignores it
/// for a plain data task, and a session's delegate is fixed when the session is made. So the
/// service makes this session, once, and the SDK's session lends it its configuration (protocol
/// classes, headers, proxies, cookies, timeouts) and its delegate: on Apple platforms, every
/// delegate message this session's delegate does not handle itself (an authentication challenge,
/// metrics, waiting for connectivity) goes to the SDK's session's delegate; on Linux, where a
/// delegate has no message forwarding, an authentication challenge is passed on by hand, on the
/// SDK's session's delegate queue. Either way they name this session.
///
/// The session keeps its delegate until it is invalidated: this object's `deinit` asks for that,
/// and the session does it once its transfers in flight have ended.
final class HTTPTransferSession: Sendable {
    /// The session the transfers run on.
    private let session: URLSession
    /// Routes each task's messages to its transfer.
    private let delegate: Delegate
    /// The largest body a transfer of this session held, in bytes: each transfer records its
    /// own when it ends.
    let largestBody = LockedValue(0)

    /// Makes a session with `base`'s configuration whose delegate passes on to `base`'s delegate
    /// what it does not handle.
    init(basedOn base: URLSession) {
        delegate = Delegate(base: base)
        #if canImport(FoundationNetworking)
            let queue: OperationQueue? = ImmediateQueue()
        #else
            let queue: OperationQueue? = nil
        #endif
        session = URLSession(configuration: base.configuration, delegate: delegate, delegateQueue: queue)
    }

    deinit {
        session.finishTasksAndInvalidate()
    }

    /// The largest body any transfer of this session held at once, in bytes: never more than the
    /// transfer's limit.
    var largestBodyBuffered: Int {
        largestBody.withLock { $0 }
    }

    /// Returns once the session has been invalidated and so lets go of its delegate: a hook for
    /// tests, which does not keep this object alive.
    var waitUntilInvalidated: @Sendable () async -> Void {
        { [delegate] in await delegate.waitUntilInvalidated() }
    }

    /// A task, not yet resumed, for `request`, whose response, body and end go to `transfer`.
    func dataTask(with request: URLRequest, reportingTo transfer: HTTPTransfer.Outcome) -> URLSessionDataTask {
        let task = session.dataTask(with: request)
        delegate.transfers.withLock { $0[task.taskIdentifier] = transfer }
        return task
    }

    /// The session's delegate: hands each task's messages to its transfer.
    private final class Delegate: NSObject, URLSessionDataDelegate, Sendable {
        /// The transfers under way, by task identifier; each leaves when its task completes.
        let transfers = LockedValue<[Int: HTTPTransfer.Outcome]>([:])
        /// The session the SDK gave, whose delegate receives what this one does not handle.
        private let base: URLSession
        /// Whether the session has been invalidated, and who waits for it.
        private let invalidation = LockedValue<(done: Bool, waiters: [CheckedContinuation<Void, Never>])>(
            (false, []))

        init(base: URLSession) {
            self.base = base
        }

        private func transfer(of task: URLSessionTask) -> HTTPTransfer.Outcome? {
            transfers.withLock { $0[task.taskIdentifier] }
        }

        func urlSession(
            _ session: URLSession, dataTask: URLSessionDataTask, didReceive response: URLResponse,
            completionHandler: @escaping @Sendable (URLSession.ResponseDisposition) -> Void
        ) {
            completionHandler(transfer(of: dataTask)?.receive(response) ?? .cancel)
        }

        func urlSession(_ session: URLSession, dataTask: URLSessionDataTask, didReceive data: Data) {
            transfer(of: dataTask)?.receive(data)
        }

        func urlSession(_ session: URLSession, task: URLSessionTask, didCompleteWithError error: (any Error)?) {
            transfers.withLock { $0.removeValue(forKey: task.taskIdentifier) }?.complete(with: error)
        }

        func urlSession(_ session: URLSession, didBecomeInvalidWithError error: (any Error)?) {
            let waiters = invalidation.withLock { invalidation in
                invalidation.done = true
                defer { invalidation.waiters = [] }
                return invalidation.waiters
            }
            for waiter in waiters { waiter.resume() }
        }

        func waitUntilInvalidated() async {
            await withCheckedContinuation { (continuation: CheckedContinuation<Void, Never>) in
                let done = invalidation.withLock { invalidation in
                    if !invalidation.done { invalidation.waiters.append(continuation) }
                    return invalidation.done
                }
                if done { continuation.resume() }
            }
        }

        #if canImport(FoundationNetworking)
            // swift-corelibs-foundation asks a session's own delegate only, and a Swift object has
            // no message forwarding: an authentication challenge is passed on here, on the SDK's
            // session's delegate queue. Never answered on the session's own queue, where this
            // delegate runs (`ImmediateQueue`): the answer suspends or cancels the task, which waits
            // for that queue. (A redirect is followed, as swift-corelibs-foundation followed it for
            // the completion-handler task 1.0.0 ran, without asking the SDK's delegate.)

            func urlSession(
                _ session: URLSession, task: URLSessionTask, didReceive challenge: URLAuthenticationChallenge,
                completionHandler: @escaping @Sendable (URLSession.AuthChallengeDisposition, URLCredential?) -> Void
            ) {
                let base = base
                base.delegateQueue.addOperation {
                    guard let delegate = base.delegate as? any URLSessionTaskDelegate else {
                        return completionHandler(.performDefaultHandling, nil)
                    }
                    delegate.urlSession(
                        session, task: task, didReceive: challenge, completionHandler: completionHandler)
                }
            }
        #else
            // Apple platforms: a message this class does not implement goes to the SDK's session's
            // delegate, if that one implements it, as if the transfer ran on the SDK's session. (The
            // end of this session is not forwarded: this class implements it.)

            override func responds(to selector: Selector!) -> Bool {
                super.responds(to: selector) || forwardee(for: selector) != nil
            }

            override func forwardingTarget(for selector: Selector!) -> Any? {
                forwardee(for: selector)
            }

            private func forwardee(for selector: Selector) -> (any URLSessionDelegate)? {
                guard let delegate = base.delegate, delegate.responds(to: selector) else { return nil }
                return delegate
            }
        #endif
    }

    #if canImport(FoundationNetworking)
        /// A delegate queue that runs each message at once, on the thread that posts it: on Linux,
        /// the session's own queue, as the transfer brings each piece of the body.
        ///
        /// swift-corelibs-foundation posts every piece of a body to the delegate queue as an
        /// operation, and nothing holds the transfer back while that queue falls behind: on two busy
        /// cores, a 64 MB body from the loopback server piled up there nearly whole (the process's
        /// peak grew by 53 to 85 MB, the body's cap being 1 MB), before or after the transfer was
        /// cut off (`cancel()` waits for the session's queue, which such a transfer keeps busy).
        /// Taken at once, each piece is kept or dropped before the transfer reads the next, and
        /// nothing waits in between.
        ///
        /// Safe because every message the session posts goes to ``Delegate``, whose handlers are
        /// short, never wait for the session, and answer what would wait for it (a challenge) from
        /// another queue; the session makes no assumption about when an operation runs.
        private final class ImmediateQueue: OperationQueue, @unchecked Sendable {
            // @unchecked: no state of its own.

            override func addOperation(_ block: @escaping @Sendable () -> Void) {
                block()
            }

            override func addOperation(_ operation: Operation) {
                operation.start()
            }
        }
    #endif
}
