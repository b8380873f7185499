import Foundation

/// Fetches an SDK's live configuration: the seam between the SDK's lifecycle and the network.
///
/// The lifecycle calls ``fetchLiveConfig()`` when it starts, on every refresh, and after a failure,
/// with backoff. Implementations decode bodies with ``RemoteConfig/decode(from:)`` (for the
/// built-in configuration, `ProjectConfig.init(jsonData:)`) so that a malformed body fails with a
/// ``/SDKEventBusWire/JSONDecodingError`` wherever it comes from.
///
/// ```swift
/// struct CDNFetchService: ConfigFetching {
///     func fetchLiveConfig() async throws -> FlagSet {
///         let body = try await myHTTPClient.get(flagsURL)
///         return try await FlagSet.decoded(from: body)
///     }
/// }
/// ```
///
/// ``HTTPConfigFetchService`` is the real one, over `URLSession`; `ScriptedConfigFetchService`
/// scripts any lifecycle in tests and demos.
public protocol ConfigFetching<Config>: Sendable {
    /// The configuration the service fetches.
    associatedtype Config: RemoteConfig

    /// Fetches and decodes the current configuration.
    ///
    /// Called from the lifecycle's task. When the SDK shuts down the task is cancelled; a fetch
    /// that does not honour cancellation is abandoned (its result is discarded), so shutdown never
    /// waits for it.
    ///
    /// - Returns: The configuration now served.
    /// - Throws: ``/SDKEventBusWire/JSONDecodingError`` for a malformed body; any other error for a failed fetch.
    ///   Both are retried with backoff (errors adopting ``FetchRetryAdvice`` steer that); the SDK
    ///   keeps its last good configuration meanwhile.
    func fetchLiveConfig() async throws -> Config
}

/// A fetch service that also passes on the body it decoded, so that the cache keeps it verbatim.
///
/// The HTTP service is one. The lifecycle caches any other service's configuration encoded as JSON (when
/// it is `Encodable`; otherwise it is not cached).
protocol BodyPassingConfigFetching<Config>: ConfigFetching {
    /// Fetches and decodes the current configuration, and passes on the body it was decoded from.
    ///
    /// - Returns: The configuration, and the body as served.
    /// - Throws: As ``ConfigFetching/fetchLiveConfig()``.
    func fetchLiveConfigWithBody() async throws -> (config: Config, body: Data?)
}

/// The SDK's own fetch function as a fetch service, for the client's `fetch:` initializers.
struct ClosureConfigFetcher<Config: RemoteConfig>: ConfigFetching {
    let fetch: @Sendable () async throws -> Config

    func fetchLiveConfig() async throws -> Config {
        try await fetch()
    }
}
