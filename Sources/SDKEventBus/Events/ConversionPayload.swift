import SDKEventBusConfig

/// The payload announcing that a visitor converted on a goal (``SystemEvent/conversion``).
///
/// ```swift
/// let payload = ConversionPayload(goalId: "100322784", visitorId: "visitor-1")
/// ```
public struct ConversionPayload: Sendable, Equatable, Codable {
    /// The goal the visitor converted on.
    public var goalId: String
    /// The visitor.
    public var visitorId: String

    /// Creates the payload.
    ///
    /// - Parameters:
    ///   - goalId: The goal the visitor converted on.
    ///   - visitorId: The visitor.
    public init(goalId: String, visitorId: String) {
        self.goalId = goalId
        self.visitorId = visitorId
    }
}
