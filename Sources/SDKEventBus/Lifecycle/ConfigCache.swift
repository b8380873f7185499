public import Foundation

/// Persists the last configuration that decoded, so that the SDK can become ready from it at the
/// next start, offline included.
///
/// ``JSONFileConfigCache`` keeps it in a file. Adopt the protocol to keep it elsewhere (a key-value
/// store, an app group container). The lifecycle calls its methods from its own task.
public protocol ConfigCache<Config>: Sendable {
    /// The configuration the cache keeps.
    associatedtype Config: RemoteConfiguration = ProjectConfig

    /// Reads the cached configuration.
    ///
    /// - Returns: The cached configuration, or `nil` when there is none yet.
    /// - Throws: ``ConfigCacheError`` when a cache exists but cannot be read or is corrupt; the
    ///   lifecycle then ignores it and reports why.
    func load() throws(ConfigCacheError) -> Config?

    /// Replaces the cached configuration.
    ///
    /// - Parameter config: A configuration that decoded and is now in effect.
    /// - Throws: ``ConfigCacheError`` when it cannot be written; the lifecycle reports it and goes on.
    func save(_ config: Config) throws(ConfigCacheError)

    /// When the cached configuration was saved, for ``Readiness/configAge``; `nil` when unknown.
    var lastSaved: Date? { get }
}

extension ConfigCache {
    /// Unknown, unless the cache keeps it.
    public var lastSaved: Date? { nil }
}
