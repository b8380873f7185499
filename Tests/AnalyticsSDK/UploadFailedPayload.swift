public import SDKEventBusCore

/// The payload of ``AnalyticsEvent/uploadFailed``: the batch that stays queued, and why.
public struct UploadFailedPayload: TypedPayload, Equatable {
    /// The event this payload belongs to.
    public static let event = AnalyticsEvent.uploadFailed
    /// The number of events the failed upload held; they stay queued.
    public var eventCount: Int
    /// The uploader's error, described.
    public var reason: String

    /// Creates the payload.
    ///
    /// - Parameters:
    ///   - eventCount: The number of events the failed upload held.
    ///   - reason: The uploader's error, described.
    public init(eventCount: Int, reason: String) {
        self.eventCount = eventCount
        self.reason = reason
    }

    /// Extracts the payload from a value of its event.
    ///
    /// - Parameter value: A payload value; `nil` results unless it is of `upload.failed`.
    public init?(_ value: AnalyticsEventPayload) {
        guard case .uploadFailed(let payload) = value else { return nil }
        self = payload
    }

    /// The payload as the catalog's sum type.
    public var payloadValue: AnalyticsEventPayload { .uploadFailed(self) }
}
