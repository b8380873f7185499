/// A configuration that replaced another: what a ``LifecycleCatalogue`` turns into its "updated"
/// event.
///
/// The store commits ``current`` before the event is fired, so a listener that reads the store
/// sees it.
public struct ConfigUpdate<Config: RemoteConfiguration>: Sendable {
    /// The configuration before, or `nil` after a degraded start that had none.
    public var previous: Config?
    /// The configuration now in effect.
    public var current: Config
    /// Where the new configuration came from.
    public var source: ConfigSource

    /// Creates an update.
    ///
    /// - Parameters:
    ///   - previous: The configuration before.
    ///   - current: The configuration now in effect.
    ///   - source: Where the new configuration came from.
    public init(previous: Config?, current: Config, source: ConfigSource) {
        self.previous = previous
        self.current = current
        self.source = source
    }
}
