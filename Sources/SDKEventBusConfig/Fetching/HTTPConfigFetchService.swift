public import Foundation

#if canImport(FoundationNetworking)
    public import FoundationNetworking
#endif

/// Fetches a configuration over HTTP with `URLSession`: the real service an SDK ships, for any
/// configuration type.
///
/// It sends the given headers (an API key, say), honours a request timeout, and uses
/// `ETag`/`If-None-Match`, so that an unchanged configuration costs a 304 and fires no event. A
/// body is decoded with ``RemoteConfig/decode(from:)``, like the scripted service's, off the
/// caller's actor, and failures are typed: ``ConfigFetchError`` for the transport, HTTP statuses
/// and oversized bodies (with the retry advice the lifecycle follows), ``/SDKEventBusWire/JSONDecodingError`` for
/// malformed bodies.
///
/// ```swift
/// let service = HTTPConfigFetchService<ProjectConfig>(
///     url: URL(string: "https://cdn.example.com/config/\(key).json")!,
///     headers: ["Authorization": "Bearer \(key)"]
/// )
/// let sdk = SDKClient(fetchService: service)
///
/// let flags = HTTPConfigFetchService<FlagSet>(url: flagsURL)   // any configuration type
/// ```
public final class HTTPConfigFetchService<Config: RemoteConfig>: BodyPassingConfigFetching {
    private let url: URL
    private let headers: [String: String]
    private let timeout: TimeInterval
    private let maximumBodySize: Int
    /// The session the transfers run on, made with `session`'s configuration.
    let transferSession: HTTPTransferSession
    /// The last configuration decoded, the body it came from and its `ETag`.
    private let validator = LockedValue<HTTPTransfer.Validator?>(nil)

    /// Creates a service.
    ///
    /// - Parameters:
    ///   - url: The configuration's URL.
    ///   - headers: Headers sent with every request, for example `Authorization`.
    ///   - timeout: How long a request may take, in all, in seconds, before it fails with a transport
    ///     error (10 s when it is not a number). The service enforces it as a deadline on the whole transfer (`URLSession`'s own timeout only
    ///     counts idle time on Apple platforms, and whole seconds on Linux).
    ///   - maximumBodySize: The largest body accepted, in bytes (decoded, when the server compresses
    ///     it); a larger one fails with ``ConfigFetchError/Code/bodyTooLarge`` and is never decoded.
    ///     The limit bounds the memory a fetch takes, not just what it accepts: a `Content-Length`
    ///     over it is refused before the body is read, and a body that streams past it is cut off
    ///     there; the transfer is cancelled either way. The body of a status other than 2xx is not
    ///     kept at all.
    ///   - session: The session whose configuration and delegate the service uses, for example one
    ///     whose delegate pins certificates; by default an ephemeral one, so that a local HTTP cache
    ///     never answers for the server. The transfers run on a session the service makes with this
    ///     one's configuration and a delegate of its own, so that it sees the body as it arrives; on
    ///     Apple platforms, the delegate messages it does not handle itself (authentication
    ///     challenges, metrics) go to this session's delegate; on Linux, authentication challenges
    ///     do.
    public init(
        url: URL,
        headers: [String: String] = [:],
        timeout: TimeInterval = 10,
        maximumBodySize: Int = 10 * 1024 * 1024,
        session: URLSession = URLSession(configuration: .ephemeral)
    ) {
        self.url = url
        self.headers = headers
        self.timeout = timeout.isNaN ? 10 : timeout
        self.maximumBodySize = maximumBodySize
        self.transferSession = HTTPTransferSession(basedOn: session)
    }

    /// Fetches the configuration, off the caller's actor; an unchanged one (304) returns the
    /// previous configuration.
    ///
    /// Cancelling the calling task (``CatalogClient/shutdown(timeout:)`` does) ends the call at once with
    /// `CancellationError`. On Apple platforms the transfer is cancelled too; on Linux it is left to
    /// end by itself within the timeout and its result is dropped, because cancelling a transfer
    /// there can deadlock or crash swift-corelibs-foundation's `URLSession`.
    ///
    /// - Returns: The configuration served.
    /// - Throws: ``ConfigFetchError``, ``/SDKEventBusWire/JSONDecodingError``, or `CancellationError`.
    public func fetchLiveConfig() async throws -> Config {
        try await fetchLiveConfigWithBody().config
    }

    /// Fetches the configuration as ``fetchLiveConfig()`` does, and passes on the body it was
    /// decoded from (for a 304, the body of the configuration it returns), which the cache keeps
    /// verbatim.
    ///
    /// - Returns: The configuration served, and its body.
    /// - Throws: ``ConfigFetchError``, ``/SDKEventBusWire/JSONDecodingError``, or `CancellationError`.
    @concurrent
    func fetchLiveConfigWithBody() async throws -> (config: Config, body: Data?) {
        // Everything but decoding is the same for every `Config`: it lives in one non-generic
        // function, and only this short one is made for each configuration type.
        let (config, body) = try await HTTPTransfer.fetch(
            url, headers: headers, timeout: timeout, maximumBodySize: maximumBodySize, on: transferSession,
            validator: validator
        ) { body throws(JSONDecodingError) in try Config.decode(from: body) }
        // `fetch` returns what the closure decoded, or what the validator keeps: a `Config`.
        return (config as! Config, body)
    }

    /// The request timeout in seconds, as the platform's `URLSession` honours it.
    static func timeoutInterval(_ timeout: TimeInterval) -> TimeInterval {
        HTTPTransfer.timeoutInterval(timeout)
    }
}

extension HTTPTransfer {
    /// The last configuration a service decoded, the body it came from and its `ETag`.
    ///
    /// A tuple, so that it needs no value witnesses of its own.
    typealias Validator = (etag: String, config: any RemoteConfig, body: Data)

    /// Fetches and decodes a configuration: everything
    /// ``HTTPConfigFetchService/fetchLiveConfig()`` does, for any configuration type.
    ///
    /// It sends the `ETag` that `validator` holds as `If-None-Match`, returns what `validator`
    /// holds for 304 Not Modified, and records there a configuration it decoded with its `ETag`.
    ///
    /// - Returns: The configuration, decoded by `decode` or kept by `validator`, and its body.
    /// - Throws: ``ConfigFetchError``, what `decode` throws, or `CancellationError`.
    static func fetch(
        _ url: URL, headers: [String: String], timeout: TimeInterval, maximumBodySize: Int,
        on transfers: HTTPTransferSession, validator: LockedValue<Validator?>, decode: (Data) throws -> any RemoteConfig
    ) async throws -> (config: any RemoteConfig, body: Data) {
        // Only the transfer is asynchronous: the rest is in synchronous functions, which take less
        // code than the parts an `async` function is split into.
        let previous = validator.withLock { $0 }
        let request = request(for: url, headers: headers, timeout: timeout, etag: previous?.etag)
        let body: Data
        let response: URLResponse
        do {
            (body, response) = try await run(
                request, on: transfers, timeout: timeout, maximumBodySize: maximumBodySize)
        } catch {
            throw transportError(error)
        }
        return try accept(
            body, response, previous: previous, maximumBodySize: maximumBodySize, validator: validator, decode: decode)
    }

    /// The `GET` request for a configuration, with `etag` (a previous configuration's) as
    /// `If-None-Match`.
    private static func request(
        for url: URL, headers: [String: String], timeout: TimeInterval, etag: String?
    ) -> URLRequest {
        var request = URLRequest(url: url)
        request.httpMethod = "GET"
        request.timeoutInterval = timeoutInterval(timeout)
        request.cachePolicy = .reloadIgnoringLocalCacheData
        for (name, value) in headers { request.setValue(value, forHTTPHeaderField: name) }
        if let etag { request.setValue(etag, forHTTPHeaderField: "If-None-Match") }
        return request
    }

    /// The error to throw for a transfer that failed with `error`.
    private static func transportError(_ error: any Error) -> any Error {
        if error is ConfigFetchError { return error }
        if Task.isCancelled { return CancellationError() }
        return ConfigFetchError(code: .transport, underlying: error, reason: error.localizedDescription)
    }

    /// The configuration a response brings: decoded from its body, or the previous one for 304.
    private static func accept(
        _ body: Data, _ response: URLResponse, previous: Validator?, maximumBodySize: Int,
        validator: LockedValue<Validator?>, decode: (Data) throws -> any RemoteConfig
    ) throws -> (config: any RemoteConfig, body: Data) {
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
            return (previous.config, previous.body)
        case 200..<300:
            // The transfer refused a larger body; this holds whatever transport brought it.
            let limit = maximumBodySize
            guard body.count <= limit, http.expectedContentLength <= Int64(limit) else {
                throw bodyTooLarge(
                    statusCode: http.statusCode, size: max(Int64(body.count), http.expectedContentLength),
                    cutOff: false, limit: limit)
            }
            let config = try decode(body)
            validator.withLock { validator in
                validator = http.value(forHTTPHeaderField: "ETag").map { ($0, config, body) }
            }
            return (config, body)
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
    static func timeoutInterval(_ timeout: TimeInterval) -> TimeInterval {
        #if canImport(FoundationNetworking)
            // swift-corelibs-foundation truncates to whole seconds, and a timeout of 0 fails at once.
            return max(1, timeout.rounded(.up))
        #else
            return timeout
        #endif
    }
}
