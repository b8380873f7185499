public import Foundation

/// Persists the last configuration that decoded, so that the SDK can become ready from it at the
/// next start, offline included.
///
/// ``JSONFileConfigCache`` keeps it in a file. Adopt the protocol to keep it elsewhere (a key-value
/// store, an app group container, a database behind an actor): every requirement is `async`, so an
/// actor or any other asynchronous store adopts it directly.
///
/// ```swift
/// actor KeyValueConfigCache: ConfigCache {
///     private var stored: (config: ProjectConfig, saved: Date)?
///
///     func load() throws(ConfigCacheError) -> ProjectConfig? { stored?.config }
///     func save(_ config: ProjectConfig) throws(ConfigCacheError) { stored = (config, Date()) }
///     func clear() throws(ConfigCacheError) { stored = nil }
///     var lastSaved: Date? { stored?.saved }
/// }
/// ```
///
/// The lifecycle calls it from its own task: ``load()`` (then ``lastSaved``) once at start,
/// ``save(_:)`` after each new configuration, and ``clear()`` when ``load()`` found a corrupt
/// configuration, so that the next start does not read it again. A call still running when the
/// lifecycle stops is abandoned: its task is cancelled and its result ignored.
public protocol ConfigCache<Config>: Sendable {
    /// The configuration the cache keeps.
    associatedtype Config: RemoteConfiguration

    /// Reads the cached configuration.
    ///
    /// - Returns: The cached configuration, or `nil` when there is none yet.
    /// - Throws: ``ConfigCacheError`` when a cache exists but cannot be read
    ///   (``ConfigCacheError/Code/unreadable``: the lifecycle ignores it and leaves it in place, as
    ///   the failure may pass) or is not a valid configuration (``ConfigCacheError/Code/corrupt``:
    ///   the lifecycle ignores it and calls ``clear()``); either way it reports why.
    func load() async throws(ConfigCacheError) -> Config?

    /// Replaces the cached configuration.
    ///
    /// - Parameter config: A configuration that decoded and is now in effect.
    /// - Throws: ``ConfigCacheError`` when it cannot be written; the lifecycle reports it and goes on.
    func save(_ config: Config) async throws(ConfigCacheError)

    /// Removes the cached configuration, so that the next ``load()`` finds none.
    ///
    /// - Throws: ``ConfigCacheError`` with code ``ConfigCacheError/Code/unwritable`` when it cannot
    ///   be removed; the lifecycle reports it and goes on.
    func clear() async throws(ConfigCacheError)

    /// When the cached configuration was saved, for ``Readiness/configAge``; `nil` when unknown.
    var lastSaved: Date? { get async }
}

extension ConfigCache {
    /// Unknown, unless the cache keeps it.
    public var lastSaved: Date? { nil }
}
