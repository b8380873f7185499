import SDKEventBusConfig

/// The payload announcing that a visitor's segments were set or changed (``SystemEvent/segments``).
public struct SegmentsPayload: Sendable, Equatable, Codable {
    /// The visitor.
    public var visitorId: String
    /// The visitor's segments after the change.
    public var segments: Segments

    /// Creates the payload.
    ///
    /// - Parameters:
    ///   - visitorId: The visitor.
    ///   - segments: The visitor's segments after the change.
    public init(visitorId: String, segments: Segments) {
        self.visitorId = visitorId
        self.segments = segments
    }
}
