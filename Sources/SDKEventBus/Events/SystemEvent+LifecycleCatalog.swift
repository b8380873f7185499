public import SDKEventBusConfig

/// The built-in catalog's configuration, and the payloads of its lifecycle events.
extension SystemEvent: LifecycleCatalog {
    /// The built-in configuration.
    public typealias Config = ProjectConfig

    /// Announces readiness as ``SystemEvent/ready`` with how it happened.
    ///
    /// - Parameters:
    ///   - readiness: How the SDK became ready.
    ///   - config: The configuration it became ready with; the ready payload does not carry it.
    /// - Returns: `.ready(ReadyPayload(readiness))`.
    public static func readyPayload(_ readiness: Readiness, config: ProjectConfig?) -> EventPayloadValue {
        .ready(ReadyPayload(readiness))
    }

    /// Announces a new configuration as ``SystemEvent/configUpdated`` with its snapshot and diff.
    ///
    /// - Parameter update: The previous and the new configuration.
    /// - Returns: `.configUpdated` with the snapshot and ``ProjectConfigChanges``.
    public static func configUpdatedPayload(_ update: ConfigUpdate<ProjectConfig>) -> EventPayloadValue? {
        .configUpdated(
            ConfigUpdatedPayload(
                snapshot: update.current,
                changes: ProjectConfigChanges(from: update.previous, to: update.current)
            )
        )
    }
}
