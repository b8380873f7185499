public import SDKEventBusCore

/// The payload of ``AnalyticsEvent/eventTracked``: the event queued for upload.
public struct EventTrackedPayload: TypedPayload, Equatable {
    /// The event this payload belongs to.
    public static let event = AnalyticsEvent.eventTracked
    /// The event, as the uploader will receive it.
    public var tracked: TrackedEvent

    /// Creates the payload.
    ///
    /// - Parameter tracked: The event queued for upload.
    public init(_ tracked: TrackedEvent) {
        self.tracked = tracked
    }

    /// Extracts the payload from a value of its event.
    ///
    /// - Parameter value: A payload value; `nil` results unless it is of `event.tracked`.
    public init?(_ value: AnalyticsEventPayload) {
        guard case .eventTracked(let payload) = value else { return nil }
        self = payload
    }

    /// The payload as the catalog's sum type.
    public var payloadValue: AnalyticsEventPayload { .eventTracked(self) }
}
