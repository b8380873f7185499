public import SDKEventBusCore

/// The payload of ``AnalyticsEvent/queueFlushed``: how many events the upload sent.
public struct QueueFlushedPayload: TypedPayload, Equatable {
    /// The event this payload belongs to.
    public static let event = AnalyticsEvent.queueFlushed
    /// The number of events uploaded and removed from the queue.
    public var eventCount: Int

    /// Creates the payload.
    ///
    /// - Parameter eventCount: The number of events uploaded.
    public init(eventCount: Int) {
        self.eventCount = eventCount
    }

    /// Extracts the payload from a value of its event.
    ///
    /// - Parameter value: A payload value; `nil` results unless it is of `queue.flushed`.
    public init?(_ value: AnalyticsEventPayload) {
        guard case .queueFlushed(let payload) = value else { return nil }
        self = payload
    }

    /// The payload as the catalog's sum type.
    public var payloadValue: AnalyticsEventPayload { .queueFlushed(self) }
}
