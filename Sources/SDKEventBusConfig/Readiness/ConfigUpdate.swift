/// A configuration that replaced another: what a ``LifecycleCatalog`` turns into its "updated"
/// event.
///
/// The store commits ``current`` before the event is fired, so a listener that reads the store
/// sees it.
public struct ConfigUpdate<Config: RemoteConfig>: Sendable {
    // The configurations are boxed, so that the update's layout does not depend on their type: its
    // value witnesses are then small fixed-layout ones rather than large generic ones.
    private var previousBox: Boxed<Config>?
    private var currentBox: Boxed<Config>

    /// The configuration before, or `nil` after a degraded start that had none.
    public var previous: Config? {
        get { previousBox?.value }
        set { previousBox = newValue.map(Boxed.init) }
    }
    /// The configuration now in effect.
    public var current: Config {
        get { currentBox.value }
        set { currentBox = Boxed(newValue) }
    }
    /// Where the new configuration came from.
    public var source: ConfigSource

    /// Creates an update.
    ///
    /// - Parameters:
    ///   - previous: The configuration before.
    ///   - current: The configuration now in effect.
    ///   - source: Where the new configuration came from.
    public init(previous: Config?, current: Config, source: ConfigSource) {
        self.previousBox = previous.map(Boxed.init)
        self.currentBox = Boxed(current)
        self.source = source
    }

    /// Creates an update from the boxes the store keeps its configurations in, without copying them.
    init(boxedPrevious previous: Boxed<Config>?, current: Boxed<Config>, source: ConfigSource) {
        self.previousBox = previous
        self.currentBox = current
        self.source = source
    }
}
