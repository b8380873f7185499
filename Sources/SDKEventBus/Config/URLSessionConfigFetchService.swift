public import Foundation

#if canImport(FoundationNetworking)
    public import FoundationNetworking
#endif

/// Fetches the configuration over HTTP with `URLSession`: the real service an SDK ships.
///
/// It sends the configured headers (an API key, say), honours a request timeout, and uses
/// `ETag`/`If-None-Match`, so that an unchanged configuration costs a 304 and fires no event. A
/// body is decoded with ``ProjectConfig/init(jsonData:)``, like the mock's, and failures are typed:
/// ``ConfigFetchError`` for the transport, HTTP statuses and oversized bodies (with the retry advice
/// the client follows), ``ConfigDecodingError`` for malformed bodies.
///
/// ```swift
/// let service = URLSessionConfigFetchService(.init(
///     url: URL(string: "https://cdn.example.com/config/\(key).json")!,
///     headers: ["Authorization": "Bearer \(key)"]
/// ))
/// let sdk = SDKClient(fetchService: service)
/// ```
public final class URLSessionConfigFetchService: ConfigFetchService {
    /// Where and how to fetch.
    public struct Configuration: Sendable {
        /// The configuration's URL.
        public var url: URL
        /// Headers sent with every request, for example `Authorization`.
        public var headers: [String: String]
        /// How long a request may take before it fails with a transport error.
        ///
        /// On Linux, `URLSession` counts whole seconds only (and fails at once below one), so the
        /// service rounds the timeout up to whole seconds there.
        public var timeout: Duration
        /// The largest body accepted, in bytes; larger ones fail with
        /// ``ConfigFetchError/Code/bodyTooLarge``.
        public var maximumBodySize: Int

        /// Creates a configuration.
        ///
        /// - Parameters:
        ///   - url: The configuration's URL.
        ///   - headers: Headers sent with every request.
        ///   - timeout: How long a request may take.
        ///   - maximumBodySize: The largest body accepted, in bytes.
        public init(
            url: URL,
            headers: [String: String] = [:],
            timeout: Duration = .seconds(10),
            maximumBodySize: Int = 10 * 1024 * 1024
        ) {
            self.url = url
            self.headers = headers
            self.timeout = timeout
            self.maximumBodySize = maximumBodySize
        }
    }

    /// The last configuration decoded and the `ETag` it came with.
    private struct Validator {
        var etag: String
        var config: ProjectConfig
    }

    /// The service's configuration.
    public let configuration: Configuration
    private let session: URLSession
    private let validator = LockedValue<Validator?>(nil)

    /// Creates a service.
    ///
    /// - Parameters:
    ///   - configuration: Where and how to fetch.
    ///   - session: The session to use; by default an ephemeral one, so that `URLSession`'s own
    ///     cache does not answer for the server.
    public init(_ configuration: Configuration, session: URLSession = URLSession(configuration: .ephemeral)) {
        self.configuration = configuration
        self.session = session
    }

    /// Fetches the configuration; an unchanged one (304) returns the previous configuration.
    ///
    /// - Returns: The configuration served.
    /// - Throws: ``ConfigFetchError``, ``ConfigDecodingError``, or `CancellationError`.
    public func fetchLiveConfig() async throws -> ProjectConfig {
        var request = URLRequest(url: configuration.url)
        request.httpMethod = "GET"
        request.timeoutInterval = Self.timeoutInterval(configuration.timeout)
        request.cachePolicy = .reloadIgnoringLocalCacheData
        for (name, value) in configuration.headers { request.setValue(value, forHTTPHeaderField: name) }
        let previous = validator.withLock { $0 }
        if let previous { request.setValue(previous.etag, forHTTPHeaderField: "If-None-Match") }

        let body: Data
        let response: URLResponse
        do {
            (body, response) = try await session.data(for: request)
        } catch {
            if Task.isCancelled { throw CancellationError() }
            throw ConfigFetchError(code: .transport, underlying: error, reason: "\(error.localizedDescription)")
        }
        guard let http = response as? HTTPURLResponse else {
            throw ConfigFetchError(code: .transport, reason: "the response is not HTTP")
        }
        switch http.statusCode {
        case 304:
            guard let previous else {
                throw ConfigFetchError(
                    code: .notModifiedWithoutCache,
                    statusCode: 304,
                    reason: "the server answered 304 Not Modified to a request without If-None-Match"
                )
            }
            return previous.config
        case 200..<300:
            let announced = http.expectedContentLength
            guard body.count <= configuration.maximumBodySize, announced <= Int64(configuration.maximumBodySize) else {
                throw ConfigFetchError(
                    code: .bodyTooLarge,
                    statusCode: http.statusCode,
                    reason:
                        "the body has \(max(Int64(body.count), announced)) bytes; the limit is \(configuration.maximumBodySize)"
                )
            }
            let config = try ProjectConfig(jsonData: body)
            validator.withLock { validator in
                validator = http.value(forHTTPHeaderField: "ETag").map { Validator(etag: $0, config: config) }
            }
            return config
        default:
            throw ConfigFetchError(
                code: .httpStatus,
                statusCode: http.statusCode,
                retryAfter: ConfigFetchError.retryAfter(header: http.value(forHTTPHeaderField: "Retry-After")),
                reason: "the server answered \(http.statusCode) "
                    + HTTPURLResponse.localizedString(forStatusCode: http.statusCode)
            )
        }
    }

    /// The request timeout in seconds, as the platform's `URLSession` honours it.
    static func timeoutInterval(_ timeout: Duration) -> TimeInterval {
        let (seconds, attoseconds) = timeout.components
        let interval = Double(seconds) + Double(attoseconds) / 1e18
        #if canImport(FoundationNetworking)
            // swift-corelibs-foundation truncates to whole seconds, and a timeout of 0 fails at once.
            return max(1, interval.rounded(.up))
        #else
            return interval
        #endif
    }
}
