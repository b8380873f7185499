public import SDKEventBusCore

/// The payload of an ``AnalyticsEvent``: one case per event, named as the event, wrapping its struct.
public enum AnalyticsEventPayload: CatalogPayload, Equatable {
    /// The payload of ``AnalyticsEvent/sessionStarted``.
    case sessionStarted(SessionStartedPayload)
    /// The payload of ``AnalyticsEvent/screenViewed``.
    case screenViewed(ScreenViewedPayload)
    /// The payload of ``AnalyticsEvent/eventTracked``.
    case eventTracked(EventTrackedPayload)
    /// The payload of ``AnalyticsEvent/queueFlushed``.
    case queueFlushed(QueueFlushedPayload)
    /// The payload of ``AnalyticsEvent/uploadFailed``.
    case uploadFailed(UploadFailedPayload)
    /// The payload of ``AnalyticsEvent/consentChanged``.
    case consentChanged(ConsentChangedPayload)

    /// The event this payload is fired as.
    public var event: AnalyticsEvent {
        switch self {
        case .sessionStarted: .sessionStarted
        case .screenViewed: .screenViewed
        case .eventTracked: .eventTracked
        case .queueFlushed: .queueFlushed
        case .uploadFailed: .uploadFailed
        case .consentChanged: .consentChanged
        }
    }
}
