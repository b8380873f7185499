/// The payload announcing that a later configuration that differs from the previous one (``SystemEvent/configUpdated``).
public struct ConfigUpdatedPayload: Sendable, Equatable, Codable {
    /// The configuration now in effect, or `nil` when the SDK only knows that it changed.
    public var snapshot: ProjectConfig?

    /// Creates the payload.
    ///
    /// - Parameter snapshot: The configuration now in effect, or `nil` when the SDK only knows that it changed.
    public init(snapshot: ProjectConfig?) {
        self.snapshot = snapshot
    }
}
