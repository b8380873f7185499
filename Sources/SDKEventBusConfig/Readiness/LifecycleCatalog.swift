/// A catalog whose SDK loads a configuration: it names the configuration type and the payloads
/// that announce readiness and changes, so that the store, the lifecycle and the client run for it.
///
/// ```swift
/// extension FlagEvent: LifecycleCatalog {
///     typealias Config = FlagSet
///
///     static func readyPayload(_ readiness: Readiness, config: FlagSet?) -> FlagEventPayload {
///         .initialized(flagCount: config?.flags.count ?? 0)
///     }
///
///     static func configUpdatedPayload(_ update: ConfigUpdate<FlagSet>) -> FlagEventPayload? {
///         let changed = update.current.keysChanged(since: update.previous)
///         return changed.isEmpty ? nil : .flagsChanged(changedKeys: changed)
///     }
/// }
/// ```
///
/// The built-in catalog announces `SystemEvent.ready` and `SystemEvent.configUpdated` with a
/// diff of `ProjectConfig`.
public protocol LifecycleCatalog: EventCatalog {
    /// The configuration the SDK fetches, stores and caches.
    associatedtype Config: RemoteConfig

    /// The payload that announces that the SDK became ready.
    ///
    /// - Parameters:
    ///   - readiness: How it became ready.
    ///   - config: The configuration it became ready with; `nil` for a degraded start.
    /// - Returns: The payload to fire, once.
    static func readyPayload(_ readiness: Readiness, config: Config?) -> Payload

    /// The payload that announces a new configuration, or `nil` to announce nothing.
    ///
    /// Called only when the new configuration differs from the previous one (not `==` to it, for an
    /// `Equatable` configuration; an identical body as served never does).
    ///
    /// - Parameter update: The previous and the new configuration.
    /// - Returns: The payload to fire, or `nil`.
    static func configUpdatedPayload(_ update: ConfigUpdate<Config>) -> Payload?
}
