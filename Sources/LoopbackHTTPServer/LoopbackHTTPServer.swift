public import Foundation

#if canImport(Glibc)
    import Glibc
#elseif canImport(Darwin)
    import Darwin
#elseif canImport(Musl)
    import Musl
#endif

/// A minimal HTTP/1.1 server on 127.0.0.1 with an ephemeral port, for integration tests and the
/// demo: it answers each GET with what a handler returns, one connection per request.
///
/// Not a product of the package: SDKs never ship it.
///
/// ```swift
/// let server = try LoopbackHTTPServer { request in
///     .init(status: 200, headers: ["ETag": "\"v1\""], body: configJSON)
/// }
/// defer { server.stop() }
/// let url = server.url(path: "/config.json")
/// ```
public final class LoopbackHTTPServer: Sendable {
    /// A request as the handler sees it.
    public struct Request: Sendable {
        /// The method, for example `GET`.
        public var method: String
        /// The path with its query.
        public var path: String
        /// The headers, with lowercased names.
        public var headers: [String: String]
    }

    /// What the server answers.
    public struct Response: Sendable {
        /// The status code.
        public var status: Int
        /// Extra headers; `Content-Length` and `Connection: close` are added.
        public var headers: [String: String]
        /// The body.
        public var body: Data
        /// How long to wait before answering, in seconds.
        public var delay: TimeInterval
        /// Sends only this many bytes of the body (announcing all of them), then closes.
        public var truncatedAfter: Int?
        /// Whether to send `Content-Length`; without it the body ends when the connection closes.
        public var announcesLength: Bool
        /// How many times ``body`` is sent, one copy after the other.
        ///
        /// A large body the server never holds whole: 64 MB is a `body` of 64 KB sent 1,024 times.
        /// `Content-Length` and ``truncatedAfter`` count the whole of it.
        public var repeatCount: Int
        /// Stops sending after this many bytes of the body (the head is sent whole) and calls `wait`,
        /// on the connection's thread, before sending the rest: a test's hook to see whether a client
        /// gives up on a body before it has arrived.
        public var pause: (after: Int, wait: @Sendable () -> Void)?

        /// Creates a response.
        ///
        /// - Parameters:
        ///   - status: The status code.
        ///   - headers: Extra headers.
        ///   - body: The body.
        ///   - delay: How long to wait before answering, in seconds.
        ///   - truncatedAfter: Sends only this many bytes of the body, then closes.
        ///   - announcesLength: Whether to send `Content-Length`.
        ///   - repeatCount: How many times the body is sent, one copy after the other.
        ///   - pause: Where in the body to stop, and what to wait for before sending the rest.
        public init(
            status: Int,
            headers: [String: String] = [:],
            body: Data = Data(),
            delay: TimeInterval = 0,
            truncatedAfter: Int? = nil,
            announcesLength: Bool = true,
            repeatCount: Int = 1,
            pause: (after: Int, wait: @Sendable () -> Void)? = nil
        ) {
            self.status = status
            self.headers = headers
            self.body = body
            self.delay = delay
            self.truncatedAfter = truncatedAfter
            self.announcesLength = announcesLength
            self.repeatCount = repeatCount
            self.pause = pause
        }
    }

    /// Answers a request.
    public typealias Handler = @Sendable (Request) -> Response

    /// The port the server listens on, on 127.0.0.1.
    public let port: UInt16
    // The server's threads hold the core, never the server, so dropping the server stops it.
    private let core: Core

    /// Starts a server on 127.0.0.1 with a port the system picks.
    ///
    /// - Parameter handler: Answers each request; called on the server's threads.
    /// - Throws: `POSIXError` when the socket cannot be set up.
    public init(handler: @escaping Handler) throws {
        core = try Core(handler: handler)
        port = core.port
        let thread = Thread { [core] in core.acceptLoop() }
        thread.name = "LoopbackHTTPServer.accept"
        thread.start()
    }

    deinit {
        core.stop()
    }

    /// The URL of `path` on this server.
    ///
    /// - Parameter path: A path starting with `/`.
    /// - Returns: `http://127.0.0.1:<port><path>`.
    public func url(path: String = "/") -> URL {
        URL(string: "http://127.0.0.1:\(port)\(path)")!
    }

    /// The requests received so far, in order.
    public var receivedRequests: [Request] {
        core.receivedRequests
    }

    /// How many responses the client cut off before the server could send them whole.
    public var abortedResponses: Int {
        core.abortedResponses
    }

    /// Returns once the server has received at least `count` requests in all: a hook for tests,
    /// instead of polling ``receivedRequests``.
    ///
    /// A request counts once the server has read it, before its handler runs.
    ///
    /// ```swift
    /// let fetch = Task { try await service.fetchLiveConfig() }
    /// await server.waitForRequests(1)   // the request is in; its response is not sent yet
    /// fetch.cancel()
    /// ```
    ///
    /// - Parameter count: How many requests to wait for.
    public func waitForRequests(_ count: Int) async {
        await core.waitForRequests(count)
    }

    /// Returns once the server has finished at least `count` responses in all.
    ///
    /// A response is finished once it was sent whole, or given up on because the client went away
    /// (``abortedResponses``): a hook for tests that look at a transfer once it is over.
    ///
    /// - Parameter count: How many responses to wait for.
    public func waitForResponsesToEnd(_ count: Int) async {
        await core.waitForResponsesToEnd(count)
    }

    /// Stops accepting connections and closes the listening socket.
    ///
    /// When `stop()` returns, the accept thread has exited, the listening socket is closed, and a
    /// connection to ``port`` is refused (until the system gives the port to someone else).
    /// Connections still sending their request are closed. A request already received is answered
    /// in full on its own thread, after `stop()` returns if need be: its handler runs, its `delay`
    /// elapses and the response is sent (or counted in ``abortedResponses`` if the client has gone);
    /// then that thread closes the connection and ends.
    ///
    /// Safe to call more than once and from any thread: a call made while another is under way
    /// returns once the server has stopped. The server also stops when it is deallocated.
    public func stop() {
        core.stop()
    }
}

/// The descriptors, the shared state and the threads' work of a ``LoopbackHTTPServer``.
///
/// The accept loop blocks in `poll(2)` on the listening socket and on the read end of a pipe that
/// `stop()` writes a byte to: that wakes it on every kernel. `shutdown(2)` of a listening socket
/// does not (Darwin answers `ENOTCONN` and leaves `accept(2)` blocked), nor does `close(2)` (which
/// would also free the descriptor number while the loop may still use it). The listening socket is
/// non-blocking, so the loop is never stuck in `accept` when the connection `poll` announced is
/// aborted before it is taken; it goes back to `poll` instead. `stop()` waits for the loop to exit
/// before it closes the descriptors, so none is closed while a thread can still use its number.
private final class Core: Sendable {
    private enum Phase {
        case running
        case stopping
        case stopped
    }

    let port: UInt16
    private let listener: Int32
    private let wakeReader: Int32
    private let wakeWriter: Int32
    private let handler: LoopbackHTTPServer.Handler
    private let state = NSCondition()
    private nonisolated(unsafe) var requests: [LoopbackHTTPServer.Request] = []  // guarded by `state`
    // Callers of `waitForRequests`, each with the request count it waits for; guarded by `state`.
    private nonisolated(unsafe) var requestWatchers: [(count: Int, continuation: CheckedContinuation<Void, Never>)] =
        []
    // Callers of `waitForResponsesToEnd`, each with the response count it waits for; guarded by `state`.
    private nonisolated(unsafe) var responseWatchers: [(count: Int, continuation: CheckedContinuation<Void, Never>)] =
        []
    private nonisolated(unsafe) var aborted = 0  // guarded by `state`
    private nonisolated(unsafe) var ended = 0  // guarded by `state`: responses sent whole or aborted
    private nonisolated(unsafe) var phase = Phase.running  // guarded by `state`
    private nonisolated(unsafe) var acceptLoopRunning = true  // guarded by `state`
    // Accepted connections whose request has not been read yet; guarded by `state`. A connection
    // thread removes its descriptor before closing it, so `stop()` never shuts down a reused number.
    private nonisolated(unsafe) var awaitingRequest: Set<Int32> = []

    init(handler: @escaping LoopbackHTTPServer.Handler) throws {
        self.handler = handler
        var ends: [Int32] = [-1, -1]
        guard pipe(&ends) == 0 else { throw Self.lastError() }
        let listening: (descriptor: Int32, port: UInt16)
        do {
            listening = try Self.openListener()
        } catch {
            close(ends[0])
            close(ends[1])
            throw error
        }
        listener = listening.descriptor
        port = listening.port
        wakeReader = ends[0]
        wakeWriter = ends[1]
        for descriptor in [wakeReader, wakeWriter] { _ = fcntl(descriptor, F_SETFD, FD_CLOEXEC) }
    }

    var receivedRequests: [LoopbackHTTPServer.Request] {
        state.withLock { requests }
    }

    var abortedResponses: Int {
        state.withLock { aborted }
    }

    /// Returns once `count` requests have been received; resumed by `serve` outside the lock.
    func waitForRequests(_ count: Int) async {
        await withCheckedContinuation { (continuation: CheckedContinuation<Void, Never>) in
            let received = state.withLock {
                guard requests.count < count else { return true }
                requestWatchers.append((count, continuation))
                return false
            }
            if received { continuation.resume() }
        }
    }

    /// Returns once `count` responses have ended; resumed by `serve` outside the lock.
    func waitForResponsesToEnd(_ count: Int) async {
        await withCheckedContinuation { (continuation: CheckedContinuation<Void, Never>) in
            let done = state.withLock {
                guard ended < count else { return true }
                responseWatchers.append((count, continuation))
                return false
            }
            if done { continuation.resume() }
        }
    }

    /// Wakes the accept loop, waits for it to exit, then closes the descriptors.
    func stop() {
        let stopsHere = state.withLock {
            guard phase == .running else {
                while phase != .stopped { state.wait() }
                return false
            }
            phase = .stopping
            return true
        }
        guard stopsHere else { return }
        var byte: UInt8 = 0
        while write(wakeWriter, &byte, 1) < 0 {
            let code = errno
            // A fresh pipe with one byte ever written cannot be full; failing here beats hanging.
            precondition(code == EINTR, "LoopbackHTTPServer cannot wake its accept loop: errno \(code)")
        }
        state.withLock {
            while acceptLoopRunning { state.wait() }
        }
        // The loop has exited: nothing uses these numbers any more.
        close(listener)
        close(wakeReader)
        close(wakeWriter)
        state.withLock {
            // Ends the connections still sending their request: their threads return from `recv` and
            // close them.
            for connection in awaitingRequest { shutdown(connection, Int32(SHUT_RDWR)) }
            phase = .stopped
            state.broadcast()
        }
    }

    /// Accepts connections, each served on a thread of its own, until `stop()` writes to the pipe.
    func acceptLoop() {
        defer {
            state.withLock {
                acceptLoopRunning = false
                state.broadcast()
            }
        }
        var pausing = false
        while true {
            // `poll` ignores a negative descriptor: while pausing, only the pipe and the timeout count.
            var descriptors = [
                pollfd(fd: wakeReader, events: Int16(POLLIN), revents: 0),
                pollfd(fd: pausing ? -1 : listener, events: Int16(POLLIN), revents: 0),
            ]
            let ready = poll(&descriptors, nfds_t(descriptors.count), pausing ? 10 : -1)
            if ready < 0 {
                let code = errno
                if code == EINTR || code == EAGAIN { continue }
                return
            }
            if descriptors[0].revents != 0 { return }
            pausing = false
            guard descriptors[1].revents != 0 else { continue }
            let connection = accept(listener, nil, nil)
            guard connection >= 0 else {
                switch errno {
                // The connection went away before it was taken, a signal arrived, or (the socket
                // being non-blocking) there is nothing to take after all: wait for the next one.
                // Linux also reports some of a pending connection's network errors this way.
                case EINTR, EAGAIN, EWOULDBLOCK, ECONNABORTED, EPROTO:
                    continue
                // Out of descriptors or memory: pause 10 ms rather than spin, still heeding `stop()`.
                case EMFILE, ENFILE, ENOBUFS, ENOMEM:
                    pausing = true
                    continue
                default:
                    return
                }
            }
            guard Self.prepare(connection) else {
                close(connection)
                continue
            }
            state.withLock { _ = awaitingRequest.insert(connection) }
            let thread = Thread { [self] in serve(connection) }
            thread.start()
        }
    }

    private func serve(_ connection: Int32) {
        defer { close(connection) }
        let request = readRequest(connection)
        let satisfied = state.withLock {
            awaitingRequest.remove(connection)
            guard let request else { return [CheckedContinuation<Void, Never>]() }
            requests.append(request)
            let count = requests.count
            defer { requestWatchers.removeAll { $0.count <= count } }
            return requestWatchers.filter { $0.count <= count }.map(\.continuation)
        }
        for watcher in satisfied { watcher.resume() }
        guard let request else { return }
        let response = handler(request)
        if response.delay > 0 { Thread.sleep(forTimeInterval: response.delay) }
        var head = "HTTP/1.1 \(response.status) \(Self.reason(response.status))\r\n"
        var headers = response.headers
        let length = response.body.count * max(response.repeatCount, 0)
        if response.announcesLength { headers["Content-Length"] = "\(length)" }
        headers["Connection"] = "close"
        for (name, value) in headers.sorted(by: { $0.key < $1.key }) { head += "\(name): \(value)\r\n" }
        head += "\r\n"
        let end = min(length, response.truncatedAfter ?? length)
        let pausedAt = response.pause.map { min($0.after, end) } ?? end
        var sent =
            sendAll(Data(head.utf8), to: connection) && sendBody(response.body, from: 0, to: pausedAt, to: connection)
        if sent, let pause = response.pause {
            pause.wait()
            sent = sendBody(response.body, from: pausedAt, to: end, to: connection)
        }
        let satisfiedByEnd = state.withLock {
            if !sent { aborted += 1 }
            ended += 1
            let count = ended
            defer { responseWatchers.removeAll { $0.count <= count } }
            return responseWatchers.filter { $0.count <= count }.map(\.continuation)
        }
        for watcher in satisfiedByEnd { watcher.resume() }
    }

    /// Sends bytes `start..<end` of `body` repeated end to end, never more than one copy at a time;
    /// returns whether all of them were sent before the peer went away.
    private func sendBody(_ body: Data, from start: Int, to end: Int, to connection: Int32) -> Bool {
        var offset = start
        while offset < end {
            let within = offset % body.count
            let part = body[(body.startIndex + within)..<(body.startIndex + min(body.count, within + end - offset))]
            guard sendAll(part, to: connection) else { return false }
            offset += part.count
        }
        return true
    }

    private func readRequest(_ connection: Int32) -> LoopbackHTTPServer.Request? {
        var received = Data()
        var buffer = [UInt8](repeating: 0, count: 4_096)
        while received.range(of: Data("\r\n\r\n".utf8)) == nil {
            let count = recv(connection, &buffer, buffer.count, 0)
            if count < 0, errno == EINTR { continue }
            guard count > 0, received.count < 65_536 else { return nil }
            received.append(contentsOf: buffer[..<count])
        }
        let text = String(decoding: received, as: UTF8.self)
        var lines = text.components(separatedBy: "\r\n")
        let requestLine = lines.removeFirst().split(separator: " ")
        guard requestLine.count >= 2 else { return nil }
        var headers: [String: String] = [:]
        for line in lines {
            guard let colon = line.firstIndex(of: ":") else { continue }
            let name = line[..<colon].lowercased()
            headers[name] = line[line.index(after: colon)...].trimmingCharacters(in: .whitespaces)
        }
        return .init(method: String(requestLine[0]), path: String(requestLine[1]), headers: headers)
    }

    /// Sends `data`; returns whether all of it was sent before the peer went away.
    ///
    /// Never raises `SIGPIPE`, which would kill the process when the peer has gone: Linux is told
    /// so on each call with `MSG_NOSIGNAL`, Darwin once per socket with `SO_NOSIGPIPE`.
    private func sendAll(_ data: Data, to connection: Int32) -> Bool {
        #if canImport(Darwin)
            let flags: Int32 = 0
        #else
            let flags = Int32(MSG_NOSIGNAL)
        #endif
        return data.withUnsafeBytes { raw in
            var offset = 0
            while offset < raw.count {
                let sent = send(connection, raw.baseAddress! + offset, raw.count - offset, flags)
                if sent < 0, errno == EINTR { continue }
                guard sent > 0 else { return false }
                offset += sent
            }
            return true
        }
    }

    /// A non-blocking TCP socket listening on 127.0.0.1, and the port the system gave it.
    private static func openListener() throws -> (descriptor: Int32, port: UInt16) {
        #if canImport(Glibc)
            let descriptor = socket(AF_INET, Int32(SOCK_STREAM.rawValue), 0)
        #else
            let descriptor = socket(AF_INET, SOCK_STREAM, 0)
        #endif
        guard descriptor >= 0 else { throw lastError() }
        var address = sockaddr_in()
        #if canImport(Darwin)
            address.sin_len = UInt8(MemoryLayout<sockaddr_in>.size)
        #endif
        address.sin_family = sa_family_t(AF_INET)
        address.sin_port = 0
        address.sin_addr.s_addr = inet_addr("127.0.0.1")
        var length = socklen_t(MemoryLayout<sockaddr_in>.size)
        let bound = withUnsafeMutablePointer(to: &address) {
            $0.withMemoryRebound(to: sockaddr.self, capacity: 1) {
                bind(descriptor, $0, length) == 0 && getsockname(descriptor, $0, &length) == 0
            }
        }
        guard bound, listen(descriptor, 64) == 0, setBlocking(descriptor, false),
            fcntl(descriptor, F_SETFD, FD_CLOEXEC) == 0
        else {
            let error = lastError()
            close(descriptor)
            throw error
        }
        return (descriptor, UInt16(bigEndian: address.sin_port))
    }

    /// Readies an accepted socket to be served by a thread of its own.
    ///
    /// Makes it blocking (Darwin, like the other BSDs, passes on the listener's `O_NONBLOCK`; Linux
    /// does not), closed on `exec`, and on Darwin exempt from `SIGPIPE`.
    private static func prepare(_ connection: Int32) -> Bool {
        guard setBlocking(connection, true), fcntl(connection, F_SETFD, FD_CLOEXEC) == 0 else { return false }
        #if canImport(Darwin)
            var on: Int32 = 1
            let size = socklen_t(MemoryLayout<Int32>.size)
            guard setsockopt(connection, SOL_SOCKET, SO_NOSIGPIPE, &on, size) == 0 else { return false }
        #endif
        return true
    }

    private static func setBlocking(_ descriptor: Int32, _ blocking: Bool) -> Bool {
        let flags = fcntl(descriptor, F_GETFL)
        guard flags >= 0 else { return false }
        return fcntl(descriptor, F_SETFL, blocking ? flags & ~O_NONBLOCK : flags | O_NONBLOCK) == 0
    }

    private static func lastError() -> POSIXError {
        POSIXError(.init(rawValue: errno) ?? .EIO)
    }

    private static func reason(_ status: Int) -> String {
        switch status {
        case 200: "OK"
        case 304: "Not Modified"
        case 401: "Unauthorized"
        case 404: "Not Found"
        case 408: "Request Timeout"
        case 429: "Too Many Requests"
        case 500: "Internal Server Error"
        case 503: "Service Unavailable"
        default: "Status"
        }
    }
}
