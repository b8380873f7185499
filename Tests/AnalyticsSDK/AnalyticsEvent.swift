public import SDKEventBusCore

/// The events of the analytics SDK: what app code listens to on ``Analytics/events``.
///
/// The raw values are the wire names the SDK uses on every platform. `consent.changed` is sticky: a
/// listener that subscribes late still learns the current consent, once. `session.started` replays
/// the current session to a listener that asks for it with `replayLatest: true`.
public enum AnalyticsEvent: String, EventCatalog {
    /// A session began: when the SDK starts, and after ``Analytics/reset()``.
    case sessionStarted = "session.started"
    /// The app showed a screen: ``Analytics/screen(_:properties:)``.
    case screenViewed = "screen.viewed"
    /// An event was queued for upload: ``Analytics/track(_:properties:)``.
    case eventTracked = "event.tracked"
    /// A batch of queued events was uploaded: ``Analytics/flush()``.
    case queueFlushed = "queue.flushed"
    /// A batch could not be uploaded; it stays queued for the next ``Analytics/flush()``.
    case uploadFailed = "upload.failed"
    /// The user's consent to tracking, announced at start and on every change.
    case consentChanged = "consent.changed"

    /// The payload sum type of the analytics events.
    public typealias Payload = AnalyticsEventPayload

    /// `consent.changed` is sticky, `session.started` replays on request; the others never replay.
    public var replayRule: ReplayRule {
        switch self {
        case .consentChanged: .sticky
        case .sessionStarted: .latestOnRequest
        case .screenViewed, .eventTracked, .queueFlushed, .uploadFailed: .none
        }
    }
}
