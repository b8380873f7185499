public import SDKEventBusConfig

/// Fetches the built-in catalog's live configuration, a ``ProjectConfig``: the seam between the
/// SDK's lifecycle and the network.
///
/// A `ConfigFetching` service whose configuration is ``ProjectConfig``; implement
/// ``/SDKEventBusConfig/ConfigFetching/fetchLiveConfig()`` and hand the service to ``SDKClient``:
///
/// ```swift
/// struct CDNFetchService: ConfigFetchService {
///     func fetchLiveConfig() async throws -> ProjectConfig {
///         let body = try await myHTTPClient.get(configURL)
///         return try await ProjectConfig.decoded(from: body)
///     }
/// }
/// ```
///
/// `HTTPConfigFetchService<ProjectConfig>` is the real one, over `URLSession`.
public protocol ConfigFetchService: ConfigFetching where Config == ProjectConfig {}

/// The package's HTTP service, fetching the built-in catalog's configuration, is one: code written
/// against `some ConfigFetchService` takes it as it takes the SDK's own.
extension HTTPConfigFetchService: ConfigFetchService where Config == ProjectConfig {}
