/// Persists the last configuration that decoded, so that the SDK can become ready from it at the
/// next start, offline included.
///
/// ``FileConfigCache`` keeps it in a file. Adopt the protocol to keep it elsewhere (a key-value
/// store, an app group container). The client calls both methods from its lifecycle task.
public protocol ConfigCache: Sendable {
    /// Reads the cached configuration.
    ///
    /// - Returns: The cached configuration, or `nil` when there is none yet.
    /// - Throws: ``ConfigCacheError`` when a cache exists but cannot be read or is corrupt; the
    ///   client then ignores it and reports why.
    func load() throws(ConfigCacheError) -> ProjectConfig?

    /// Replaces the cached configuration.
    ///
    /// - Parameter config: A configuration that decoded and is now in effect.
    /// - Throws: ``ConfigCacheError`` when it cannot be written; the client reports it and goes on.
    func save(_ config: ProjectConfig) throws(ConfigCacheError)
}
