/// Fetches an SDK's live configuration: the seam between the SDK's lifecycle and the network.
///
/// The lifecycle calls ``fetchLiveConfig()`` when it starts, on every refresh, and after a failure,
/// with backoff. Implementations decode bodies with ``RemoteConfiguration/decode(from:)`` (for the
/// built-in configuration, ``ProjectConfig/init(jsonData:)``) so that a malformed body fails with a
/// ``ConfigDecodingError`` wherever it comes from.
///
/// ```swift
/// struct CDNFetchService: ConfigFetching {
///     func fetchLiveConfig() async throws -> ProjectConfig {
///         let body = try await myHTTPClient.get(configURL)
///         return try await ProjectConfig.decoded(from: body)
///     }
/// }
/// ```
///
/// ``HTTPConfigFetchService`` is the real one, over `URLSession`; ``ScriptedConfigFetchService``
/// scripts any lifecycle in tests and demos.
public protocol ConfigFetching<Config>: Sendable {
    /// The configuration the service fetches.
    associatedtype Config: RemoteConfiguration

    /// Fetches and decodes the current configuration.
    ///
    /// Called from the lifecycle's task. When the SDK shuts down the task is cancelled; a fetch
    /// that does not honour cancellation is abandoned (its result is discarded), so shutdown never
    /// waits for it.
    ///
    /// - Returns: The configuration now served.
    /// - Throws: ``ConfigDecodingError`` for a malformed body; any other error for a failed fetch.
    ///   Both are retried with backoff (errors adopting ``FetchRetryAdvice`` steer that); the SDK
    ///   keeps its last good configuration meanwhile.
    func fetchLiveConfig() async throws -> Config
}
