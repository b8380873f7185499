import Dispatch
import Foundation
import LoopbackHTTPServer
import Testing

#if canImport(Glibc)
    import Glibc
#elseif canImport(Darwin)
    import Darwin
#elseif canImport(Musl)
    import Musl
#endif

/// The test server's own lifecycle, seen through plain POSIX sockets: stopping it while it waits,
/// refusing connections once stopped, surviving clients that leave early, and leaking nothing.
///
/// Nothing here sleeps to let something happen: a test waits for the operation itself, for a
/// semaphore its handler signals, or for the server's observable state, each with a bound that fails
/// the test with a message rather than hanging it.
///
/// Every one of those waits, and every other call that can block (a socket's `connect`, `send` and
/// `recv`, the server's `stop()` and deinit), runs on a thread of its own through ``offThePool(_:)``,
/// never on the thread running the test. Swift Testing runs tests, sync ones too, on Swift
/// concurrency's cooperative pool, which has one thread per core: two tests blocking there on a
/// two-core machine would hold the whole pool, and every other test in the process would wait for
/// them, under the thread sanitizer for many seconds.
@Suite(.timeLimit(.minutes(1))) struct LoopbackHTTPServerTests {
    @Test func stopReturnsPromptlyWhileTheAcceptLoopIsIdle() async throws {
        // No request ever arrives: the accept loop is blocked waiting for one, which on Darwin
        // nothing but the server's own wake-up can end.
        let server = try LoopbackHTTPServer { _ in .init(status: 200) }
        #expect(
            await finishes(within: 60) { server.stop() },
            "stop() did not return: the accept loop slept on"
        )
    }

    @Test func connectionsAreRefusedOnceStopHasReturned() async throws {
        // Another suite's server may bind the port once this one released it, and then accepts the
        // connection: a fresh server tries again. A server that kept listening fails every try.
        var outcomes: [String] = []
        for _ in 0..<3 {
            let server = try LoopbackHTTPServer { _ in .init(status: 200) }
            try await offThePool {
                try PlainSocket(connectingTo: server.port).disconnect()
                server.stop()
            }
            let outcome = await offThePool { () -> String in
                do {
                    _ = try PlainSocket(connectingTo: server.port)
                    return "port \(server.port): connected after stop"
                } catch {
                    return (error as? POSIXError)?.code == .ECONNREFUSED ? "refused" : "port \(server.port): \(error)"
                }
            }
            outcomes.append(outcome)
            if outcome == "refused" { break }
        }
        #expect(outcomes.last == "refused", "\(outcomes)")
    }

    @Test func stoppingAgainOrFromManyThreadsAtOnceIsHarmless() async throws {
        let server = try LoopbackHTTPServer { _ in .init(status: 200) }
        await offThePool {
            server.stop()
            server.stop()
        }
        await #expect(throws: POSIXError(.ECONNREFUSED)) {
            try await offThePool { _ = try PlainSocket(connectingTo: server.port) }
        }

        let shared = try LoopbackHTTPServer { _ in .init(status: 200) }
        // Every call returns only once the server has stopped, not just the one that stops it.
        let refused = await offThePool {
            let refused = Counter()
            DispatchQueue.concurrentPerform(iterations: 8) { _ in
                shared.stop()
                do {
                    _ = try PlainSocket(connectingTo: shared.port)
                } catch let error as POSIXError where error.code == .ECONNREFUSED {
                    refused.increment()
                } catch {}
            }
            return refused.count
        }
        #expect(refused == 8)
    }

    @Test func droppingTheServerStopsIt() async throws {
        // The deinit stops the server, so the only reference is dropped off the pool too.
        let port = try await offThePool {
            var server: LoopbackHTTPServer? = try LoopbackHTTPServer { _ in .init(status: 200) }
            let port = server!.port
            server = nil
            return port
        }
        await #expect(throws: POSIXError(.ECONNREFUSED)) {
            try await offThePool { _ = try PlainSocket(connectingTo: port) }
        }
    }

    @Test func stopClosesConnectionsStillSendingARequestAndLetsReceivedOnesFinish() async throws {
        let entered = DispatchSemaphore(value: 0)
        let release = DispatchSemaphore(value: 0)
        let server = try LoopbackHTTPServer { _ in
            entered.signal()
            release.wait()
            return .init(status: 200, body: Data("answered".utf8))
        }
        defer { stopOffThePool(server) }
        let (unfinished, received) = try await offThePool {
            let unfinished = try PlainSocket(connectingTo: server.port)
            try unfinished.write("GET /unfinished HTTP/1.1\r\n")
            let received = try PlainSocket(connectingTo: server.port)
            try received.write("GET /received HTTP/1.1\r\n\r\n")
            return (unfinished, received)
        }
        // The server accepts in order, so `unfinished` is accepted too, its thread waiting in `recv`.
        #expect(await isSignalled(entered, within: 60), "the handler was never called")

        #expect(await finishes(within: 60) { server.stop() }, "stop() waited for the handler")
        // The server ends the connection still sending its request: the client reads the end of it
        // (or a reset, had it still been in the backlog when the listening socket was closed), not
        // `ReceiveTimedOut`.
        do {
            let rest = try await offThePool { try unfinished.readToEnd() }
            #expect(rest.isEmpty)
        } catch let error as POSIXError where error.code == .ECONNRESET {}
        await #expect(throws: POSIXError(.ECONNREFUSED)) {
            try await offThePool { _ = try PlainSocket(connectingTo: server.port) }
        }
        release.signal()
        let response = String(decoding: try await offThePool { try received.readToEnd() }, as: UTF8.self)
        #expect(response.hasPrefix("HTTP/1.1 200 OK\r\n"))
        #expect(response.hasSuffix("\r\n\r\nanswered"))
        #expect(server.receivedRequests.map(\.path) == ["/received"])
    }

    /// A client that sends its request and leaves (closing, or resetting the connection) before the
    /// response is written.
    ///
    /// Writing to that connection must not raise `SIGPIPE`, which would kill the test process
    /// (Linux raises it for a closed peer unless told `MSG_NOSIGNAL`; Darwin for both unless the
    /// socket has `SO_NOSIGPIPE`); the server counts the response as aborted and serves on.
    @Test(arguments: [false, true]) func clientLeavingBeforeTheResponseLeavesTheServerServing(
        resets: Bool
    ) async throws {
        let entered = DispatchSemaphore(value: 0)
        let release = DispatchSemaphore(value: 0)
        let server = try LoopbackHTTPServer { request in
            guard request.path == "/leaves" else { return .init(status: 200, body: Data("next".utf8)) }
            entered.signal()
            release.wait()
            // More than any socket buffer holds, so the server's writes reach the departed peer.
            return .init(status: 200, body: Data(count: 32 << 20))
        }
        defer { stopOffThePool(server) }
        let leaving = try await offThePool {
            let leaving = try PlainSocket(connectingTo: server.port)
            try leaving.write("GET /leaves HTTP/1.1\r\n\r\n")
            return leaving
        }
        #expect(await isSignalled(entered, within: 60), "the handler was never called")
        leaving.disconnect(resetting: resets)
        release.signal()
        #expect(
            await eventually { server.abortedResponses == 1 },
            "the server did not notice that the client had gone"
        )

        let bytes = try await offThePool { try PlainSocket.get("/next", port: server.port) }
        let response = String(decoding: bytes, as: UTF8.self)
        #expect(response.hasPrefix("HTTP/1.1 200 OK\r\n"))
        #expect(response.hasSuffix("\r\n\r\nnext"))
    }

    @Test func clientClosingBeforeSendingARequestIsIgnored() async throws {
        let server = try LoopbackHTTPServer { _ in .init(status: 204) }
        defer { stopOffThePool(server) }
        try await offThePool { try PlainSocket(connectingTo: server.port).disconnect() }
        let bytes = try await offThePool { try PlainSocket.get("/next", port: server.port) }
        let response = String(decoding: bytes, as: UTF8.self)
        #expect(response.hasPrefix("HTTP/1.1 204 "))
        #expect(server.receivedRequests.map(\.path) == ["/next"])
    }

    @Test func manyStartStopCyclesLeakNoDescriptorsOrThreads() async throws {
        let cycles = 1_000
        let descriptorsBefore = Self.entries(of: "/proc/self/fd")
        let threadsBefore = Self.entries(of: "/proc/self/task")
        try await offThePool {
            for cycle in 0..<cycles {
                let server = try LoopbackHTTPServer { _ in .init(status: 200) }
                // Half the servers serve a request, read to the end: by then its connection is closed.
                if cycle.isMultiple(of: 2) { _ = try PlainSocket.get("/", port: server.port) }
                server.stop()
            }
        }
        // A leak adds at least one per cycle. Other suites run meanwhile and hold descriptors and
        // threads of their own (up to about 120 seen), far fewer than half the cycles.
        if let descriptorsBefore, let descriptorsAfter = Self.entries(of: "/proc/self/fd") {
            #expect(
                descriptorsAfter - descriptorsBefore < cycles / 2,
                "descriptors: \(descriptorsBefore) → \(descriptorsAfter)"
            )
        }
        if let threadsBefore, let threadsAfter = Self.entries(of: "/proc/self/task") {
            #expect(threadsAfter - threadsBefore < cycles / 2, "threads: \(threadsBefore) → \(threadsAfter)")
        }
    }

    /// How many entries `directory` has, or `nil` where it does not exist (no `/proc` on Darwin).
    static func entries(of directory: String) -> Int? {
        try? FileManager.default.contentsOfDirectory(atPath: directory).count
    }
}

/// Waits for `semaphore`, off the pool, for at most `limit`.
///
/// - Returns: Whether `semaphore` was signalled in time.
private func isSignalled(_ semaphore: DispatchSemaphore, within limit: TimeInterval) async -> Bool {
    let deadline = DispatchTime.now() + limit
    return await offThePool { semaphore.wait(timeout: deadline) == .success }
}

/// Runs `body` on a thread of its own and waits for it, off the pool, at most `limit`.
///
/// - Returns: Whether `body` returned in time; if not, it is left running.
private func finishes(within limit: TimeInterval, _ body: @escaping @Sendable () -> Void) async -> Bool {
    let done = DispatchSemaphore(value: 0)
    Thread {
        body()
        done.signal()
    }
    .start()
    return await isSignalled(done, within: limit)
}

/// Checks `condition` again and again, off the pool and yielding the processor in between, for at
/// most 10 seconds.
///
/// - Returns: Whether `condition` held in time.
private func eventually(_ condition: @escaping @Sendable () -> Bool) async -> Bool {
    await offThePool {
        let deadline = DispatchTime.now() + 10
        while !condition() {
            guard DispatchTime.now() < deadline else { return false }
            sched_yield()
        }
        return true
    }
}

/// Stops `server` on a thread of its own, without waiting for it: for a `defer`, which cannot await.
///
/// `stop()` blocks until the accept loop has exited. The thread holds the server until then, so the
/// test dropping its own reference never runs a deinit that has to wait.
///
/// - Parameter server: The server to stop.
private func stopOffThePool(_ server: LoopbackHTTPServer) {
    Thread { server.stop() }.start()
}

/// A blocking TCP client on 127.0.0.1 made of plain POSIX calls, so a test sees what the kernel says.
///
/// Its calls block, so tests make them through ``offThePool(_:)``. One thread uses a socket at a time:
/// a socket passes between the test and the threads doing its work only where the continuation of
/// ``offThePool(_:)`` orders their accesses, hence `@unchecked Sendable`.
private final class PlainSocket: @unchecked Sendable {
    /// The server neither sent anything nor closed the connection for 10 seconds.
    struct ReceiveTimedOut: Error, CustomStringConvertible {
        var description: String { "nothing arrived for 10 seconds, and the connection is still open" }
    }

    private var descriptor: Int32

    /// Connects to `port` on 127.0.0.1.
    ///
    /// - Parameter port: The port.
    /// - Throws: `POSIXError` with the code `connect` failed with, for example `ECONNREFUSED`.
    init(connectingTo port: UInt16) throws {
        #if canImport(Glibc)
            descriptor = socket(AF_INET, Int32(SOCK_STREAM.rawValue), 0)
        #else
            descriptor = socket(AF_INET, SOCK_STREAM, 0)
        #endif
        guard descriptor >= 0 else { throw Self.lastError() }
        // A receive waiting longer than this fails with EAGAIN rather than hanging the test.
        var timeout = timeval(tv_sec: 10, tv_usec: 0)
        _ = setsockopt(descriptor, SOL_SOCKET, SO_RCVTIMEO, &timeout, socklen_t(MemoryLayout<timeval>.size))
        #if canImport(Darwin)
            var on: Int32 = 1
            _ = setsockopt(descriptor, SOL_SOCKET, SO_NOSIGPIPE, &on, socklen_t(MemoryLayout<Int32>.size))
        #endif
        var address = sockaddr_in()
        #if canImport(Darwin)
            address.sin_len = UInt8(MemoryLayout<sockaddr_in>.size)
        #endif
        address.sin_family = sa_family_t(AF_INET)
        address.sin_port = port.bigEndian
        address.sin_addr.s_addr = inet_addr("127.0.0.1")
        let connected = withUnsafePointer(to: &address) {
            $0.withMemoryRebound(to: sockaddr.self, capacity: 1) {
                connect(descriptor, $0, socklen_t(MemoryLayout<sockaddr_in>.size))
            }
        }
        guard connected == 0 else {
            let error = Self.lastError()
            disconnect()
            throw error
        }
    }

    deinit {
        disconnect()
    }

    /// Sends a request for `path` and reads the whole response.
    ///
    /// - Parameters:
    ///   - path: The path to request.
    ///   - port: The server's port on 127.0.0.1.
    /// - Returns: The response's bytes, head and body.
    /// - Throws: `POSIXError` or ``ReceiveTimedOut``.
    static func get(_ path: String, port: UInt16) throws -> Data {
        let socket = try PlainSocket(connectingTo: port)
        try socket.write("GET \(path) HTTP/1.1\r\nHost: 127.0.0.1\r\n\r\n")
        return try socket.readToEnd()
    }

    /// Sends all of `text`.
    ///
    /// - Parameter text: What to send, as UTF-8.
    /// - Throws: `POSIXError`.
    func write(_ text: String) throws {
        #if canImport(Darwin)
            let flags: Int32 = 0
        #else
            let flags = Int32(MSG_NOSIGNAL)
        #endif
        let bytes = Array(text.utf8)
        var offset = 0
        while offset < bytes.count {
            let sent = bytes[offset...].withUnsafeBytes { send(descriptor, $0.baseAddress, $0.count, flags) }
            guard sent > 0 else { throw Self.lastError() }
            offset += sent
        }
    }

    /// Reads until the server closes the connection.
    ///
    /// - Returns: Everything received.
    /// - Throws: ``ReceiveTimedOut`` when nothing arrived for 10 seconds; `POSIXError`, for example
    ///   `ECONNRESET`.
    func readToEnd() throws -> Data {
        var received = Data()
        var buffer = [UInt8](repeating: 0, count: 65_536)
        while true {
            let count = recv(descriptor, &buffer, buffer.count, 0)
            if count < 0, errno == EAGAIN || errno == EWOULDBLOCK { throw ReceiveTimedOut() }
            guard count >= 0 else { throw Self.lastError() }
            if count == 0 { return received }
            received.append(contentsOf: buffer[..<count])
        }
    }

    /// Closes the connection, once.
    ///
    /// - Parameter resetting: Whether to abort it with a reset (`SO_LINGER` of 0) instead of
    ///   closing it in order.
    func disconnect(resetting: Bool = false) {
        guard descriptor >= 0 else { return }
        if resetting {
            var option = linger(l_onoff: 1, l_linger: 0)
            _ = setsockopt(descriptor, SOL_SOCKET, SO_LINGER, &option, socklen_t(MemoryLayout<linger>.size))
        }
        _ = close(descriptor)
        descriptor = -1
    }

    private static func lastError() -> POSIXError {
        POSIXError(.init(rawValue: errno) ?? .EIO)
    }
}
