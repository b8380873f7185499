/// Where a configuration came from: what made the SDK ready (``Readiness/source``), what is in
/// effect (``SDKStatus/source``), and what an update brought (``ConfigUpdate/source``).
///
/// ```swift
/// let readiness = try await sdk.ready()
/// switch readiness.source {
/// case .live: break
/// case .cache, .initial: showStaleBadge(age: readiness.configAge)
/// case .degraded: showDefaults(because: readiness.error)
/// }
/// ```
///
/// The raw values are the names logs and wire forms use.
public enum ConfigSource: String, Sendable, Hashable, Codable, CustomStringConvertible {
    /// A live fetch, by the lifecycle's ``ConfigFetching`` service.
    case live
    /// The ``ConfigCache`` of the last good configuration, read at start.
    case cache
    /// The configuration the SDK author gave to start from,
    /// ``LifecycleConfiguration/initialConfig``.
    case initial
    /// None: the readiness policy let the SDK start without a configuration after a failure, and
    /// ``Readiness/error`` says which. Never the source of a configuration itself.
    case degraded

    /// The source's name, for logs.
    public var description: String { rawValue }
}
