import SDKEventBusConfig

/// The payload announcing a configuration that differs from the previous one
/// (``SystemEvent/configUpdated``): the new configuration and what changed.
///
/// ```swift
/// bus.on(ConfigUpdatedPayload.self) { update in
///     if let changes = update.changes, !changes.experiences.changed.isEmpty { reloadExperiments() }
/// }
/// ```
public struct ConfigUpdatedPayload: Sendable, Equatable, Codable {
    /// The configuration now in effect, or `nil` when the SDK only knows that it changed.
    public var snapshot: ProjectConfig?
    /// What changed since the previous configuration, when known.
    public var changes: ProjectConfigChanges?

    /// Creates the payload.
    ///
    /// - Parameters:
    ///   - snapshot: The configuration now in effect, or `nil` when the SDK only knows that it changed.
    ///   - changes: What changed since the previous configuration.
    public init(snapshot: ProjectConfig?, changes: ProjectConfigChanges? = nil) {
        self.snapshot = snapshot
        self.changes = changes
    }
}
