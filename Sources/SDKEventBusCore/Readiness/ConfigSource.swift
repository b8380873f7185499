/// Where the configuration in effect came from.
public enum ConfigSource: Sendable, Hashable, CustomStringConvertible {
    /// Fetched by the client's ``ConfigFetching``: ``Readiness/Source/live`` when it
    /// made the SDK ready.
    case live
    /// Read from the ``ConfigCache`` at start.
    case cache
    /// Given by the SDK author in ``LifecycleConfiguration/initialConfig``:
    /// ``Readiness/Source/initial`` when it made the SDK ready.
    case initial

    /// Fetched by the client's fetch service.
    @available(*, deprecated, renamed: "live")
    public static var network: ConfigSource { .live }

    /// Given by the SDK author.
    @available(*, deprecated, renamed: "initial")
    public static var injected: ConfigSource { .initial }

    /// The source's name, for logs.
    public var description: String {
        switch self {
        case .live: "live"
        case .cache: "cache"
        case .initial: "initial"
        }
    }
}
