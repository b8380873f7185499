import SDKEventBusConfig

/// The payload announcing that a visitor matched audiences (``SystemEvent/audiences``).
public struct AudiencesPayload: Sendable, Equatable, Codable {
    /// The audiences the visitor matched.
    public var audienceIds: [String]
    /// The visitor.
    public var visitorId: String

    /// Creates the payload.
    ///
    /// - Parameters:
    ///   - audienceIds: The audiences the visitor matched.
    ///   - visitorId: The visitor.
    public init(audienceIds: [String], visitorId: String) {
        self.audienceIds = audienceIds
        self.visitorId = visitorId
    }
}
