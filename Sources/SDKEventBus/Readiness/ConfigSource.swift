/// Where the configuration in effect came from.
public enum ConfigSource: Sendable, Hashable, CustomStringConvertible {
    /// Fetched by the client's ``ConfigFetchService``.
    case network
    /// Read from the ``ConfigCache`` at start.
    case cache
    /// Given by the SDK author in ``LifecycleConfiguration/initialConfig``.
    case injected

    /// The source's name, for logs.
    public var description: String {
        switch self {
        case .network: "network"
        case .cache: "cache"
        case .injected: "injected"
        }
    }
}
