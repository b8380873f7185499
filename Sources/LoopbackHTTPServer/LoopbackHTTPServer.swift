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
        /// How long to wait before answering.
        public var delay: Duration
        /// Sends only this many bytes of the body (announcing all of them), then closes.
        public var truncatedAfter: Int?
        /// Whether to send `Content-Length`; without it the body ends when the connection closes.
        public var announcesLength: Bool

        /// Creates a response.
        ///
        /// - Parameters:
        ///   - status: The status code.
        ///   - headers: Extra headers.
        ///   - body: The body.
        ///   - delay: How long to wait before answering.
        ///   - truncatedAfter: Sends only this many bytes of the body, then closes.
        ///   - announcesLength: Whether to send `Content-Length`.
        public init(
            status: Int,
            headers: [String: String] = [:],
            body: Data = Data(),
            delay: Duration = .zero,
            truncatedAfter: Int? = nil,
            announcesLength: Bool = true
        ) {
            self.status = status
            self.headers = headers
            self.body = body
            self.delay = delay
            self.truncatedAfter = truncatedAfter
            self.announcesLength = announcesLength
        }
    }

    /// Answers a request.
    public typealias Handler = @Sendable (Request) -> Response

    /// The port the server listens on, on 127.0.0.1.
    public let port: UInt16
    private let listener: Int32
    private let handler: Handler
    private let state = NSLock()
    private nonisolated(unsafe) var requests: [Request] = []  // guarded by `state`
    private nonisolated(unsafe) var stopped = false  // guarded by `state`
    private nonisolated(unsafe) var aborted = 0  // guarded by `state`

    /// Starts a server on 127.0.0.1 with a port the system picks.
    ///
    /// - Parameter handler: Answers each request; called on the server's threads.
    /// - Throws: `POSIXError` when the socket cannot be set up.
    public init(handler: @escaping Handler) throws {
        self.handler = handler
        #if canImport(Glibc) || canImport(Musl)
            let fd = socket(AF_INET, Int32(SOCK_STREAM.rawValue), 0)
        #else
            let fd = socket(AF_INET, SOCK_STREAM, 0)
        #endif
        guard fd >= 0 else { throw POSIXError(.init(rawValue: errno) ?? .EIO) }
        var address = sockaddr_in()
        address.sin_family = sa_family_t(AF_INET)
        address.sin_port = 0
        address.sin_addr.s_addr = inet_addr("127.0.0.1")
        let bound = withUnsafePointer(to: &address) {
            $0.withMemoryRebound(to: sockaddr.self, capacity: 1) {
                bind(fd, $0, socklen_t(MemoryLayout<sockaddr_in>.size))
            }
        }
        guard bound == 0, listen(fd, 64) == 0 else {
            close(fd)
            throw POSIXError(.init(rawValue: errno) ?? .EIO)
        }
        var length = socklen_t(MemoryLayout<sockaddr_in>.size)
        _ = withUnsafeMutablePointer(to: &address) {
            $0.withMemoryRebound(to: sockaddr.self, capacity: 1) { getsockname(fd, $0, &length) }
        }
        listener = fd
        port = UInt16(bigEndian: address.sin_port)
        let thread = Thread { [self] in acceptLoop() }
        thread.name = "LoopbackHTTPServer.accept"
        thread.start()
    }

    deinit {
        stop()
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
        state.withLock { requests }
    }

    /// How many responses the client cut off before the server could send them whole.
    public var abortedResponses: Int {
        state.withLock { aborted }
    }

    /// Stops accepting connections.
    ///
    /// Requests already being answered finish.
    public func stop() {
        let wasRunning = state.withLock {
            defer { stopped = true }
            return !stopped
        }
        guard wasRunning else { return }
        // Only wakes the accept loop: the loop closes the socket itself once it has left `accept`.
        // Closing it here would free its descriptor while the loop may still be about to call
        // `accept` on that number, which another server may have been given meanwhile.
        shutdown(listener, Int32(SHUT_RDWR))
    }

    private func acceptLoop() {
        defer { close(listener) }
        while true {
            let connection = accept(listener, nil, nil)
            guard connection >= 0 else {
                if errno == EINTR, !state.withLock({ stopped }) { continue }
                return
            }
            let thread = Thread { [self] in serve(connection) }
            thread.start()
        }
    }

    private func serve(_ connection: Int32) {
        defer { close(connection) }
        guard let request = readRequest(connection) else { return }
        state.withLock { requests.append(request) }
        let response = handler(request)
        if response.delay > .zero {
            let (seconds, attoseconds) = response.delay.components
            Thread.sleep(forTimeInterval: Double(seconds) + Double(attoseconds) / 1e18)
        }
        var head = "HTTP/1.1 \(response.status) \(Self.reason(response.status))\r\n"
        var headers = response.headers
        if response.announcesLength { headers["Content-Length"] = "\(response.body.count)" }
        headers["Connection"] = "close"
        for (name, value) in headers.sorted(by: { $0.key < $1.key }) { head += "\(name): \(value)\r\n" }
        head += "\r\n"
        var bytes = Data(head.utf8)
        bytes.append(response.body.prefix(response.truncatedAfter ?? response.body.count))
        if !send(bytes, to: connection) { state.withLock { aborted += 1 } }
    }

    private func readRequest(_ connection: Int32) -> Request? {
        var received = Data()
        var buffer = [UInt8](repeating: 0, count: 4_096)
        while received.range(of: Data("\r\n\r\n".utf8)) == nil {
            let count = recv(connection, &buffer, buffer.count, 0)
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
        return Request(method: String(requestLine[0]), path: String(requestLine[1]), headers: headers)
    }

    /// Sends `data`; returns whether all of it was sent before the peer went away.
    private func send(_ data: Data, to connection: Int32) -> Bool {
        data.withUnsafeBytes { raw in
            var offset = 0
            while offset < raw.count {
                #if canImport(Glibc) || canImport(Musl)
                    let sent = Glibc.send(
                        connection, raw.baseAddress! + offset, raw.count - offset, Int32(MSG_NOSIGNAL))
                #else
                    let sent = Darwin.send(connection, raw.baseAddress! + offset, raw.count - offset, 0)
                #endif
                guard sent > 0 else { return false }
                offset += sent
            }
            return true
        }
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
