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
///     private var stored: (body: Data, saved: Date)?
///
///     func load() throws -> FlagSet? { try stored.map { try FlagSet.decode(from: $0.body) } }
///     func save(_ config: FlagSet, body: Data) { stored = (body, Date()) }
///     func clear() { stored = nil }
///     var lastSaved: Date? { stored?.saved }
/// }
/// ```
///
/// The lifecycle calls it from its own task: ``load()`` (then ``lastSaved``) once at start,
/// ``save(_:body:)`` after each new configuration, and ``clear()`` when ``load()`` found a corrupt
/// configuration, so that the next start does not read it again. A call still running when the
/// lifecycle stops is abandoned: its task is cancelled and its result ignored.
public protocol ConfigCache<Config>: Sendable {
    /// The configuration the cache keeps.
    associatedtype Config: RemoteConfig

    /// Reads the cached configuration.
    ///
    /// - Returns: The cached configuration, or `nil` when there is none yet.
    /// - Throws: A ``/SDKEventBusWire/JSONDecodingError`` when what the cache holds is not a valid configuration:
    ///   the lifecycle ignores it and calls ``clear()``. Any other error when the cache cannot be
    ///   read: the lifecycle ignores it and leaves it in place, as the failure may pass. Either way
    ///   it reports the error.
    func load() async throws -> Config?

    /// Replaces the cached configuration.
    ///
    /// - Parameters:
    ///   - config: A configuration that decoded and is now in effect.
    ///   - body: Bytes that `Config.decode(from:)` reads back as `config`: the body as served when
    ///     the fetch service passes it on (``HTTPConfigFetchService`` does), otherwise
    ///     the configuration encoded as JSON (an `Encodable` one). Keep them, or keep `config` your
    ///     own way.
    /// - Throws: When it cannot be written; the lifecycle reports it and goes on.
    func save(_ config: Config, body: Data) async throws

    /// Removes the cached configuration, so that the next ``load()`` finds none.
    ///
    /// - Throws: When it cannot be removed; the lifecycle reports it and goes on.
    func clear() async throws

    /// When the cached configuration was saved, for ``Readiness/configAge``; `nil` when unknown.
    var lastSaved: Date? { get async }
}

extension ConfigCache {
    /// Unknown: a cache that keeps no date.
    public var lastSaved: Date? { nil }
}
