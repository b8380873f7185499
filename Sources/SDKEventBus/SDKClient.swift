public import SDKEventBusConfig

/// The built-in catalog's SDK facade; see `CatalogClient`.
///
/// ```swift
/// let sdk = SDKClient(fetchService: MyCDNFetchService())
/// try await sdk.ready()                       // suspends until the first configuration is in
/// let token = sdk.on(.configUpdated) { payload in … }
/// print(sdk.config?.experiences.count ?? 0)
/// ```
public typealias SDKClient = CatalogClient<SystemEvent>
