/// Where a configuration came from: what is in effect (``SDKStatus/source``), what an update
/// brought (``ConfigUpdate/source``), and what an SDK that fetches by itself passes to
/// ``CatalogConfigStore/setConfig(_:from:fetchedAt:)``.
///
/// A degraded start has no configuration, so it has no `ConfigSource`: ``Readiness/source`` is a
/// ``Readiness/Source``, which adds ``Readiness/Source/degraded``.
///
/// The raw values are the names logs and wire forms use. Closed for good, with
/// ``Readiness/Source``, which has each of its cases and is on the wire: its cases never change in
/// 1.x. It is not `@frozen`, so a `switch` over it in a binary SDK's library-evolution build still
/// ends with `@unknown default`.
public enum ConfigSource: String, Sendable, Hashable, Codable {
    /// A live fetch, by the lifecycle's ``ConfigFetching`` service or the SDK's own.
    case live
    /// The ``ConfigCache`` of the last good configuration, read at start.
    case cache
    /// The configuration the SDK author gave to start from,
    /// ``LifecycleConfiguration/initialConfig``.
    case initial
}
