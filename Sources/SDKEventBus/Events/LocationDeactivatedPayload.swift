import SDKEventBusConfig

/// The payload announcing that a previously active location stopped matching (``SystemEvent/locationDeactivated``).
public struct LocationDeactivatedPayload: Sendable, Equatable, Codable {
    /// Creates the payload.
    public init() {}
}
