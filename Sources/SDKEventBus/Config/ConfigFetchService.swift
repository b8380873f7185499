/// Fetches the SDK's live configuration: the seam between the SDK's lifecycle and the network.
///
/// ``SDKClient`` calls ``fetchLiveConfig()`` when it starts, again on every refresh, and again after
/// a failure, with backoff. Implementations decode bodies with ``ProjectConfig/init(jsonData:)`` so
/// that a malformed body fails with a ``ConfigDecodingError`` wherever it comes from.
///
/// ```swift
/// struct CDNFetchService: ConfigFetchService {
///     func fetchLiveConfig() async throws -> ProjectConfig {
///         let (body, _) = try await URLSession.shared.data(from: configURL)
///         return try ProjectConfig(jsonData: body)
///     }
/// }
/// ```
///
/// Use ``MockConfigFetchService`` to script any lifecycle in tests and demos.
public protocol ConfigFetchService: Sendable {
    /// Fetches and decodes the current configuration.
    ///
    /// Called from the SDK's lifecycle task; cancelled when the SDK shuts down, so a long request
    /// should honour cancellation.
    ///
    /// - Returns: The configuration now served.
    /// - Throws: ``ConfigDecodingError`` for a malformed body; any other error for a failed fetch.
    ///   Both are retried with backoff; the SDK keeps its last good configuration meanwhile.
    func fetchLiveConfig() async throws -> ProjectConfig
}
