import SDKEventBusConfig

/// The payload announcing that a visitor was bucketed into a variation (``SystemEvent/bucketing``).
///
/// ```swift
/// let payload = BucketingPayload(experienceId: "100334665", variationId: "1003142551", visitorId: "visitor-1")
/// ```
public struct BucketingPayload: Sendable, Equatable, Codable {
    /// The experience the visitor was bucketed in.
    public var experienceId: String
    /// The variation the visitor sees.
    public var variationId: String
    /// The visitor.
    public var visitorId: String

    /// Creates the payload.
    ///
    /// - Parameters:
    ///   - experienceId: The experience the visitor was bucketed in.
    ///   - variationId: The variation the visitor sees.
    ///   - visitorId: The visitor.
    public init(experienceId: String, variationId: String, visitorId: String) {
        self.experienceId = experienceId
        self.variationId = variationId
        self.visitorId = visitorId
    }
}
