import Foundation
import LoopbackHTTPServer
import SDKEventBusTesting
import Testing

@testable import SDKEventBus
@testable import SDKEventBusConfig
@testable import SDKEventBusCore
@testable import SDKEventBusWire

#if canImport(FoundationNetworking)
    import FoundationNetworking
#endif

/// The real HTTP fetch service against a real server on 127.0.0.1 (an ephemeral port), started and
/// stopped by each test.
@Suite(.timeLimit(.minutes(2))) struct URLSessionConfigFetchServiceTests {
    typealias Response = LoopbackHTTPServer.Response

    static let fixture = Fixtures.projectConfigData
    static let changed = Fixtures.serialize(
        Fixtures.fixtureObject().merging(["account_id": "changed"]) { $1 }
    )

    /// Runs `body` with a server whose answers come from `handler` and a service pointed at it, then
    /// stops the server, also when `body` throws.
    ///
    /// The server stops on a dispatch queue: `stop()` blocks until its accept thread has exited, and a
    /// blocking wait must not hold one of the cooperative pool's few threads.
    @discardableResult
    static func withServer<Result>(
        maximumBodySize: Int = 10 * 1024 * 1024,
        timeout: TimeInterval = 10,
        answering handler: @escaping LoopbackHTTPServer.Handler,
        _ body: (LoopbackHTTPServer, HTTPConfigFetchService<ProjectConfig>) async throws -> Result
    ) async throws -> Result {
        let server = try LoopbackHTTPServer(handler: handler)
        let service = HTTPConfigFetchService<ProjectConfig>(
            url: server.url(path: "/config/key-1.json"), headers: ["Authorization": "Bearer key-1"], timeout: timeout,
            maximumBodySize: maximumBodySize)
        do {
            let result = try await body(server, service)
            await stop(server)
            return result
        } catch {
            await stop(server)
            throw error
        }
    }

    /// Runs `body` with a server that answers every request with `response`, then stops the server.
    @discardableResult
    static func withServer<Result>(
        maximumBodySize: Int = 10 * 1024 * 1024,
        timeout: TimeInterval = 10,
        answering response: Response,
        _ body: (LoopbackHTTPServer, HTTPConfigFetchService<ProjectConfig>) async throws -> Result
    ) async throws -> Result {
        try await withServer(maximumBodySize: maximumBodySize, timeout: timeout, answering: { _ in response }, body)
    }

    /// Stops `server` on a dispatch queue and returns once it has stopped.
    static func stop(_ server: LoopbackHTTPServer) async {
        await withCheckedContinuation { (continuation: CheckedContinuation<Void, Never>) in
            DispatchQueue.global().async {
                server.stop()
                continuation.resume()
            }
        }
    }

    /// A response the server holds back until the test releases it, so that a test can tell whether
    /// a fetch ended before its response was sent without timing it.
    final class HeldResponse: Sendable {
        private let released = DispatchSemaphore(value: 0)
        private let sent = LockedValue(false)
        private let response: Response

        init(_ response: Response) {
            self.response = response
        }

        /// Whether the server has sent the response.
        var wasSent: Bool { sent.withLock { $0 } }

        /// Answers after ``release()``, waiting on the server's connection thread, never on the
        /// cooperative pool; at most a minute, so that a failing test does not keep the thread.
        var handler: LoopbackHTTPServer.Handler {
            { [self] _ in
                _ = released.wait(timeout: .now() + 60)
                sent.withLock { $0 = true }
                return response
            }
        }

        /// Lets the server send the response.
        func release() {
            released.signal()
        }
    }

    /// Answers 200 with the body and `ETag`, or 304 when the request carries that ETag.
    static func etagServer(body: @escaping @Sendable () -> (Data, String)) -> LoopbackHTTPServer.Handler {
        { request in
            let (data, etag) = body()
            if request.headers["if-none-match"] == etag { return Response(status: 304, headers: ["ETag": etag]) }
            return Response(status: 200, headers: ["ETag": etag, "Content-Type": "application/json"], body: data)
        }
    }

    @Test func fetchesAndDecodesTheRealConfigurationWithTheConfiguredHeaders() async throws {
        try await Self.withServer(answering: Response(status: 200, body: Self.fixture)) { server, service in
            #expect(try await service.fetchLiveConfig() == Fixtures.projectConfig)
            let request = try #require(server.receivedRequests.first)
            #expect(request.method == "GET")
            #expect(request.path == "/config/key-1.json")
            #expect(request.headers["authorization"] == "Bearer key-1")
            #expect(request.headers["if-none-match"] == nil)
        }
    }

    @Test func unchangedConfigurationCostsA304AndReturnsThePreviousOne() async throws {
        try await Self.withServer(answering: Self.etagServer { (Self.fixture, "\"v1\"") }) { server, service in
            let first = try await service.fetchLiveConfig()
            let second = try await service.fetchLiveConfig()
            #expect(first == second)
            #expect(server.receivedRequests.map { $0.headers["if-none-match"] } == [nil, "\"v1\""])
        }
    }

    @Test func notModifiedWithoutABodyToReuseIsARetryableError() async throws {
        try await Self.withServer(answering: Response(status: 304)) { _, service in
            await #expect {
                try await service.fetchLiveConfig()
            } throws: { error in
                (error as? ConfigFetchError)?.code == .notModifiedWithoutCache
                    && (error as! ConfigFetchError).isRetryable
            }
        }
    }

    @Test(arguments: [
        (401, false), (403, false), (404, false), (408, true), (429, true), (500, true), (502, true), (503, true),
    ])
    func errorStatusIsATypedErrorWithRetryAdvice(status: Int, retryable: Bool) async throws {
        try await Self.withServer(answering: Response(status: status, body: Data("nope".utf8))) { _, service in
            do {
                _ = try await service.fetchLiveConfig()
                Issue.record("status \(status) was accepted")
            } catch let error as ConfigFetchError {
                #expect(error.code == .httpStatus)
                #expect(error.statusCode == status)
                #expect(error.isRetryable == retryable, "\(error)")
            }
        }
    }

    @Test func tooManyRequestsCarriesRetryAfter() async throws {
        try await Self.withServer(answering: Response(status: 429, headers: ["Retry-After": "7"])) { _, service in
            await #expect {
                try await service.fetchLiveConfig()
            } throws: { error in
                (error as? ConfigFetchError)?.retryAfter == 7
            }
        }
    }

    @Test func retryAfterAcceptsAnHTTPDate() {
        let now = Date(timeIntervalSince1970: 1_000_000_000)
        // 1,000,000,000 s after the epoch is Sun, 09 Sep 2001 01:46:40 GMT.
        #expect(ConfigFetchError.retryAfter(header: "Sun, 09 Sep 2001 01:47:00 GMT", now: now) == 20)
        #expect(ConfigFetchError.retryAfter(header: "Sunday, 09-Sep-01 01:47:00 GMT", now: now) == 20)
        #expect(ConfigFetchError.retryAfter(header: "Sun Sep  9 01:47:00 2001", now: now) == 20)
        #expect(ConfigFetchError.retryAfter(header: "120", now: now) == 120)
        #expect(ConfigFetchError.retryAfter(header: "soon", now: now) == nil)
        #expect(ConfigFetchError.retryAfter(header: "99999999999999999999999", now: now) == 86_400)
        #expect(ConfigFetchError.retryAfter(header: "Fri, 31 Dec 9999 23:59:59 GMT", now: now) == 86_400)
    }

    @Test func oversizedBodyIsRejectedWithATypedError() async throws {
        try await Self.withServer(maximumBodySize: 1_000, answering: Response(status: 200, body: Self.fixture)) {
            _, service in
            await #expect {
                try await service.fetchLiveConfig()
            } throws: { error in
                (error as? ConfigFetchError)?.code == .bodyTooLarge
            }
        }
    }

    @Test func bodyOverTheLimitWithoutContentLengthIsRejected() async throws {
        let huge = Data(count: 4 * 1024 * 1024)
        try await Self.withServer(
            maximumBodySize: 1024 * 1024,
            answering: Response(status: 200, body: huge, announcesLength: false)
        ) { _, service in
            await #expect {
                try await service.fetchLiveConfig()
            } throws: { error in
                (error as? ConfigFetchError)?.code == .bodyTooLarge
            }
        }
    }

    // MARK: A body over the limit

    static let megabyte = 1 << 20
    /// 64 KB of JSON whitespace: sent 1,024 times, a 64 MB body the server never holds whole.
    static let filler = Data(repeating: UInt8(ascii: " "), count: 64 * 1024)

    /// A body the server stops sending after some bytes until the test releases the rest, so that a
    /// test can tell whether a fetch ended before the rest was sent without timing it.
    final class HeldBody: Sendable {
        private let released = DispatchSemaphore(value: 0)
        private let resumed = LockedValue(false)
        private let after: Int

        init(after: Int) {
            self.after = after
        }

        /// Whether the server has gone on to send the rest.
        var restWasSent: Bool { resumed.withLock { $0 } }

        /// Stops after `after` bytes and waits for ``release()`` on the server's connection thread;
        /// at most a minute, so that a failing test does not keep the thread.
        var pause: (after: Int, wait: @Sendable () -> Void) {
            (
                after,
                { [self] in
                    _ = released.wait(timeout: .now() + 60)
                    resumed.withLock { $0 = true }
                }
            )
        }

        /// Lets the server send the rest.
        func release() {
            released.signal()
        }
    }

    /// Fetches, expecting `bodyTooLarge`; returns the error.
    static func bodyTooLarge(
        from service: HTTPConfigFetchService<ProjectConfig>, sourceLocation: SourceLocation = #_sourceLocation
    ) async -> ConfigFetchError? {
        do {
            _ = try await service.fetchLiveConfig()
            Issue.record("an oversized body was accepted", sourceLocation: sourceLocation)
        } catch let error as ConfigFetchError where error.code == .bodyTooLarge {
            #expect(error.statusCode == 200, sourceLocation: sourceLocation)
            #expect(!error.isRetryable, sourceLocation: sourceLocation)
            return error
        } catch {
            Issue.record("failed with \(error), not bodyTooLarge", sourceLocation: sourceLocation)
        }
        return nil
    }

    @Test func contentLengthOverTheLimitIsRefusedBeforeTheBodyIsRead() async throws {
        // The server sends the head, announcing 64 MB, then waits: a client that reads the body
        // before it judges its size waits with it.
        let held = HeldBody(after: 0)
        let response = Response(status: 200, body: Self.filler, repeatCount: 1_024, pause: held.pause)
        try await Self.withServer(maximumBodySize: Self.megabyte, answering: response) { _, service in
            let error = await Self.bodyTooLarge(from: service)
            #expect(!held.restWasSent, "the fetch waited for the body")
            held.release()
            #expect(
                error?.description
                    == "config fetch failed (bodyTooLarge 200): the body has 67108864 bytes; the limit is 1048576")
            #expect(service.transferSession.largestBodyBuffered == 0)
        }
    }

    @Test func bodyWithoutContentLengthIsCutOffAsItStreamsPastTheLimit() async throws {
        // The server sends 2 MB of a 64 MB body without Content-Length, then waits.
        let held = HeldBody(after: 2 * Self.megabyte)
        let response = Response(
            status: 200, body: Self.filler, announcesLength: false, repeatCount: 1_024, pause: held.pause)
        try await Self.withServer(maximumBodySize: Self.megabyte, answering: response) { _, service in
            let error = await Self.bodyTooLarge(from: service)
            #expect(!held.restWasSent, "the fetch waited for the whole body")
            held.release()
            let description = try #require(error?.description)
            #expect(description.hasPrefix("config fetch failed (bodyTooLarge 200): the body has at least "))
            #expect(description.hasSuffix(" bytes (it was cut off there); the limit is 1048576"))
            #expect(service.transferSession.largestBodyBuffered <= Self.megabyte)
        }
    }

    /// The fixture followed by spaces, `size` bytes in all.
    static func fixture(paddedTo size: Int) -> Data {
        Self.fixture + Data(repeating: UInt8(ascii: " "), count: size - Self.fixture.count)
    }

    @Test(arguments: [true, false])
    func bodyExactlyAtTheLimitIsAccepted(announcesLength: Bool) async throws {
        let limit = Self.fixture.count + 100_000
        let response = Response(status: 200, body: Self.fixture(paddedTo: limit), announcesLength: announcesLength)
        try await Self.withServer(maximumBodySize: limit, answering: response) { _, service throws in
            #expect(try await service.fetchLiveConfig() == Fixtures.projectConfig)
            #expect(service.transferSession.largestBodyBuffered == limit)
        }
    }

    @Test(arguments: [true, false])
    func bodyOneByteOverTheLimitIsRefused(announcesLength: Bool) async throws {
        let limit = Self.fixture.count + 100_000
        let response = Response(status: 200, body: Self.fixture(paddedTo: limit + 1), announcesLength: announcesLength)
        try await Self.withServer(maximumBodySize: limit, answering: response) { _, service in
            let error = await Self.bodyTooLarge(from: service)
            let size = announcesLength ? "\(limit + 1)" : "at least \(limit + 1)"
            #expect(error?.description.contains("the body has \(size) bytes") == true, "\(String(describing: error))")
            #expect(service.transferSession.largestBodyBuffered <= limit)
        }
    }

    @Test(.serialized, arguments: [true, false])
    func oversizedBodyTakesNoMoreMemoryThanTheLimit(announcesLength: Bool) async throws {
        // 256 MB against a 1 MB limit. A transfer that holds the body whole before judging it takes
        // 256 MB or more (1.0.0's completion-handler task took twice the body: gathered, then
        // copied). The bound, half the body, leaves room for what other tests running at the same
        // time take, and for the thread sanitizer's own memory (up to 70 MB of growth under it).
        let response = Response(
            status: 200, body: Self.filler, announcesLength: announcesLength, repeatCount: 4_096)
        try await Self.withServer(maximumBodySize: Self.megabyte, answering: response) { server, service in
            let memory = PeakResidentMemory()
            _ = await Self.bodyTooLarge(from: service)
            // The peak once the transfer is over, not just once the caller has its error.
            await server.waitForResponsesToEnd(1)
            #expect(service.transferSession.largestBodyBuffered <= Self.megabyte)
            if let growth = memory?.growth {
                print(
                    "URLSessionConfigFetchServiceTests: a 256 MB body \(announcesLength ? "with" : "without")"
                        + " Content-Length raised the peak resident memory by \(growth / 1_024) KB;"
                        + " the server could not send it whole: \(server.abortedResponses == 1)")
                #expect(growth < 128 * Self.megabyte, "the peak grew by \(growth / 1_024) KB")
            }
        }
    }

    @Test func compressedBodyIsDecodedAndItsDecodedSizeIsWhatTheLimitBounds() async throws {
        // 1 MB of spaces after the fixture, served as about 33 KB of gzip: within the limit as sent,
        // over it decoded.
        let bomb = GzipBody.make(Self.fixture, thenSpaces: Self.megabyte)
        let response = Response(status: 200, headers: ["Content-Encoding": "gzip"], body: bomb)
        try await Self.withServer(maximumBodySize: Self.megabyte, answering: response) { _, service in
            let error = await Self.bodyTooLarge(from: service)
            #expect(error?.description.contains("(it was cut off there); the limit is 1048576") == true)
            #expect(service.transferSession.largestBodyBuffered <= Self.megabyte)
        }
        let compressed = Response(
            status: 200, headers: ["Content-Encoding": "gzip"], body: GzipBody.make(Self.fixture, thenSpaces: 1_000))
        try await Self.withServer(maximumBodySize: Self.fixture.count + 1_000, answering: compressed) {
            _, service throws in
            #expect(try await service.fetchLiveConfig() == Fixtures.projectConfig)
        }
    }

    @Test func redirectIsFollowed() async throws {
        let handler: LoopbackHTTPServer.Handler = { request in
            request.path == "/config/key-1.json"
                ? Response(status: 302, headers: ["Location": "/config/moved.json"])
                : Response(status: 200, body: Self.fixture)
        }
        try await Self.withServer(answering: handler) { server, service throws in
            #expect(try await service.fetchLiveConfig() == Fixtures.projectConfig)
            #expect(server.receivedRequests.map(\.path) == ["/config/key-1.json", "/config/moved.json"])
        }
    }

    @Test func errorStatusWithABodyOverTheLimitIsStillAnHTTPStatusError() async throws {
        // The body of a 503 is not kept, so its size says nothing: the status decides the retry.
        let response = Response(status: 503, body: Self.filler, repeatCount: 32)
        try await Self.withServer(maximumBodySize: 1_024, answering: response) { _, service in
            await #expect {
                try await service.fetchLiveConfig()
            } throws: { error in
                (error as? ConfigFetchError).map { $0.code == .httpStatus && $0.statusCode == 503 } ?? false
            }
            #expect(service.transferSession.largestBodyBuffered == 0)
        }
    }

    @Test func droppedServiceInvalidatesItsSessionSoThatTheSessionLetsGoOfItsDelegate() async throws {
        // A session keeps its delegate until it is invalidated: a service that did not invalidate
        // its own would leak both.
        let server = try LoopbackHTTPServer { _ in Response(status: 200, body: Self.fixture) }
        var service: HTTPConfigFetchService<ProjectConfig>? = HTTPConfigFetchService(url: server.url())
        _ = try await service?.fetchLiveConfig()
        let invalidated = try #require(service?.transferSession.waitUntilInvalidated)
        service = nil
        await invalidated()
        await Self.stop(server)
    }

    @Test func malformedBodyFailsWithTheSameErrorAsTheDecoder() async throws {
        let body = Data(Self.fixture.prefix(500))
        var expected: JSONDecodingError?
        do { _ = try ProjectConfig(jsonData: body) } catch { expected = error }
        let decoderError = try #require(expected)
        try await Self.withServer(answering: Response(status: 200, body: body)) { _, service in
            await #expect(throws: decoderError) { try await service.fetchLiveConfig() }
        }
    }

    @Test func transferCutShortIsATransportError() async throws {
        try await Self.withServer(answering: Response(status: 200, body: Self.fixture, truncatedAfter: 100)) {
            _, service in
            await #expect {
                try await service.fetchLiveConfig()
            } throws: { error in
                if let error = error as? ConfigFetchError { return error.code == .transport && error.isRetryable }
                return error is JSONDecodingError  // a client that hands over the partial body: rejected as truncated
            }
        }
    }

    @Test func slowServerHitsTheRequestTimeoutAndNotSooner() async throws {
        try await Self.withServer(
            timeout: 0.3,
            answering: Response(status: 200, body: Self.fixture, delay: 5)
        ) { _, service in
            let started = Date()
            await #expect {
                try await service.fetchLiveConfig()
            } throws: { error in
                (error as? ConfigFetchError)?.code == .transport
            }
            #expect(Date().timeIntervalSince(started) >= 0.3, "not an immediate failure")
        }
    }

    @Test func cancellingAFetchResumesTheCallerAtOnce() async throws {
        let held = HeldResponse(Response(status: 200, body: Self.fixture))
        // A transfer deadline far beyond the test: only the cancellation can end the fetch, however
        // loaded the machine.
        try await Self.withServer(timeout: 120, answering: held.handler) { server, service in
            let fetch = Task { try await service.fetchLiveConfig() }
            await server.waitForRequests(1)
            fetch.cancel()
            await #expect(throws: CancellationError.self) { try await fetch.value }
            #expect(!held.wasSent, "the caller waited for the response")
            held.release()
        }
    }

    @Test func cancellationRacingTheResponseNeitherDeadlocksNorCrashes() async throws {
        // Cancelling URLSession.data(for:) as its response arrives deadlocks or crashes
        // swift-corelibs-foundation; the service must survive that race every time.
        try await Self.withServer(answering: Response(status: 200, body: Self.fixture)) { server, service in
            var outcomes = (fetched: 0, cancelled: 0)
            for round in 0..<200 {
                let fetch = Task { try await service.fetchLiveConfig() }
                // Cancel as the server answers: once the request is in, after 0 to 7 hops that land the
                // cancel at different points of the response.
                await server.waitForRequests(round + 1)
                await varyInterleaving(yielding: round % 8)
                fetch.cancel()
                do {
                    let config = try await fetch.value
                    #expect(config == Fixtures.projectConfig, "round \(round) fetched a wrong configuration")
                    outcomes.fetched += 1
                } catch is CancellationError {
                    outcomes.cancelled += 1
                } catch {
                    Issue.record("round \(round) ended with \(error), neither a configuration nor a cancellation")
                }
            }
            print("URLSessionConfigFetchServiceTests: \(outcomes.fetched) fetched, \(outcomes.cancelled) cancelled")
            let afterwards = try await service.fetchLiveConfig()
            #expect(afterwards == Fixtures.projectConfig, "the service still works")
        }
    }

    @Test func timeoutIsRoundedUpToWholeSecondsWhereURLSessionCountsOnlySeconds() {
        #if canImport(FoundationNetworking)
            #expect(HTTPConfigFetchService<ProjectConfig>.timeoutInterval(0.3) == 1)
            #expect(HTTPConfigFetchService<ProjectConfig>.timeoutInterval(1.5) == 2)
        #else
            #expect(HTTPConfigFetchService<ProjectConfig>.timeoutInterval(0.3) == 0.3)
        #endif
    }

    @Test func refusedConnectionIsARetryableTransportError() async throws {
        try await Self.withServer(answering: Response(status: 200)) { server, service in
            await Self.stop(server)
            await #expect {
                try await service.fetchLiveConfig()
            } throws: { error in
                (error as? ConfigFetchError).map { $0.code == .transport && $0.isRetryable } ?? false
            }
        }
    }

    // MARK: Through the client's lifecycle

    @Test @MainActor func refreshAnsweredWith304FiresNoEventAndAChangeFiresConfigUpdated() async throws {
        let version = LockedValue((Self.fixture, "\"v1\""))
        try await Self.withServer(answering: Self.etagServer { version.withLock { $0 } }) { server, service in
            let harness = ClientHarness()
            let (client, _) = harness.client(service)
            try await client.ready()
            #expect(try await harness.clock.advanceToNextDeadline() == 60)
            await harness.diagnostics.wait { $0.appliedChange == .unchanged }
            version.withLock { $0 = (Self.changed, "\"v2\"") }
            #expect(try await harness.clock.advanceToNextDeadline() == 60)
            await harness.diagnostics.wait { $0.appliedChange == .updated }
            try await harness.recorder.waitForCount(2)  // the step is reported before the event fires
            await client.bus.flush()
            #expect(harness.recorder.events == [.ready, .configUpdated])
            #expect(server.receivedRequests.map { $0.headers["if-none-match"] } == [nil, "\"v1\"", "\"v1\""])
            #expect(client.config?.accountId == "changed")
            await client.shutdown()
        }
    }

    @Test @MainActor func retryAfterIsHonouredAboveTheBackoff() async throws {
        let count = LockedValue(0)
        let handler: LoopbackHTTPServer.Handler = { _ in
            count.withLock { $0 += 1 }
            return count.withLock { $0 } == 1
                ? Response(status: 429, headers: ["Retry-After": "120"]) : Response(status: 200, body: Self.fixture)
        }
        try await Self.withServer(answering: handler) { _, service in
            let harness = ClientHarness()
            let (client, _) = harness.client(service)
            #expect(try await harness.clock.advanceToNextDeadline() == 120, "not the 1 s backoff")
            try await client.ready()
            await client.shutdown()
        }
    }

    @Test @MainActor func clientErrorIsNotRetriedUntilTheNextRefresh() async throws {
        try await Self.withServer(answering: Response(status: 404)) { _, service throws in
            let harness = ClientHarness()
            let (client, _) = harness.client(service)
            #expect(try await harness.clock.timeUntilNextDeadline() == 60, "the refresh interval, not a backoff")
            #expect(client.status.lastFetchError is ConfigFetchError)
            await client.shutdown()
        }
    }

    @Test @MainActor func clientErrorWithoutARefreshIntervalRetriesAfterTheLongestBackoff() async throws {
        // Stopping instead would leave ready() waiting forever.
        try await Self.withServer(answering: Response(status: 401)) { server, service throws in
            let harness = ClientHarness()
            let (client, _) = harness.client(service, refreshInterval: nil)
            #expect(try await harness.clock.advanceToNextDeadline() == 30)
            #expect(try await harness.clock.timeUntilNextDeadline() == 30, "the second attempt failed and waits again")
            #expect(server.receivedRequests.count == 2)
            await client.shutdown()
        }
    }

    @Test @MainActor func hugeRetryAfterIsClampedInsteadOfOverflowingTheClock() async throws {
        try await Self.withServer(answering: Response(status: 503, headers: ["Retry-After": "9223372036854775807"])) {
            _, service throws in
            let harness = ClientHarness()
            let (client, _) = harness.client(service)
            #expect(try await harness.clock.timeUntilNextDeadline() == 86_400)
            await client.shutdown()
        }
    }

    @Test @MainActor func nonRetryableErrorResetsTheBackoff() async throws {
        let count = LockedValue(0)
        let handler: LoopbackHTTPServer.Handler = { _ in
            let number = count.withLock { value in
                value += 1
                return value
            }
            return Response(status: [503, 503, 404, 503][min(number - 1, 3)])
        }
        try await Self.withServer(answering: handler) { _, service in
            let harness = ClientHarness()
            let (client, _) = harness.client(service)
            var delays: [TimeInterval] = []
            for _ in 0..<4 { delays.append(try await harness.clock.advanceToNextDeadline()) }
            #expect(delays == [1, 2, 60, 1], "a 503 after the 404 starts over")
            await client.shutdown()
        }
    }

    @Test @MainActor func shutdownCancelsAFetchInFlightPromptly() async throws {
        let held = HeldResponse(Response(status: 200, body: Self.fixture))
        try await Self.withServer(answering: held.handler) { server, service in
            let harness = ClientHarness()
            let (client, _) = harness.client(service)
            await server.waitForRequests(1)
            await client.shutdown()
            #expect(!held.wasSent, "shutdown waited for the response")
            held.release()
            #expect(client.status.isShutDown)
            #expect(client.config == nil)
        }
    }
}

/// The process's peak resident memory from now on, where the system can measure it (Linux): the
/// peak is reset when this is made, and ``growth`` is how far it rose above the memory resident
/// then.
///
/// Process-wide, so it counts other tests' memory too: a bound checked with it needs a margin.
struct PeakResidentMemory {
    private let start: Int

    /// Resets the peak; `nil` where the system cannot.
    init?() {
        #if os(Linux)
            // Writing 5 to clear_refs resets VmHWM, the peak, to VmRSS (Linux 4.0 and later).
            guard (try? "5".write(toFile: "/proc/self/clear_refs", atomically: false, encoding: .utf8)) != nil,
                let resident = Self.status("VmRSS:")
            else { return nil }
            start = resident
        #else
            return nil
        #endif
    }

    /// How far the peak rose above the memory resident when this was made, in bytes.
    var growth: Int? {
        Self.status("VmHWM:").map { max($0 - start, 0) }
    }

    /// A line of /proc/self/status that gives kilobytes, in bytes.
    private static func status(_ field: String) -> Int? {
        guard let text = try? String(contentsOfFile: "/proc/self/status", encoding: .utf8),
            let line = text.split(separator: "\n").first(where: { $0.hasPrefix(field) }),
            let kilobytes = line.split(separator: " ").dropFirst().first.flatMap({ Int($0) })
        else { return nil }
        return kilobytes * 1_024
    }
}
