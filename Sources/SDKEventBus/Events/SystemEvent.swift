/// A system event an SDK announces to the app: the closed, frozen catalogue.
///
/// The raw values are a wire contract shared with the same SDK in other languages (JavaScript,
/// Android) and with analytics pipelines that match on these exact strings. Cases and raw values
/// never change, and the enum is `@frozen`, so a `switch` over it needs no `default`.
///
/// | case | raw value | payload | replay |
/// | --- | --- | --- | --- |
/// | ``ready`` | `ready` | ``ReadyPayload`` | sticky |
/// | ``configUpdated`` | `config.updated` | ``ConfigUpdatedPayload`` | latest, on request |
/// | ``apiQueueReleased`` | `api.queue.released` | ``ApiQueueReleasedPayload`` | — |
/// | ``bucketing`` | `bucketing` | ``BucketingPayload`` | — |
/// | ``conversion`` | `conversion` | ``ConversionPayload`` | — |
/// | ``segments`` | `segments` | ``SegmentsPayload`` | — |
/// | ``locationActivated`` | `location.activated` | ``LocationActivatedPayload`` | — |
/// | ``locationDeactivated`` | `location.deactivated` | ``LocationDeactivatedPayload`` | — |
/// | ``audiences`` | `audiences` | ``AudiencesPayload`` | — |
/// | ``dataStoreQueueReleased`` | `datastore.queue.released` | ``DataStoreQueueReleasedPayload`` | — |
///
/// The replay column is ``replayRule``: whether a listener that subscribes after the event was fired
/// still receives it.
///
/// ```swift
/// let token = await bus.on(.bucketing) { payload in
///     print("bucketed", payload)
/// }
/// ```
@frozen
public enum SystemEvent: String, CaseIterable, Sendable, Codable {
    /// The SDK has its first configuration; ``SDKClient/ready()`` returns from now on.
    case ready = "ready"
    /// A later configuration differs from the previous one.
    case configUpdated = "config.updated"
    /// Queued tracking calls were sent to the API.
    case apiQueueReleased = "api.queue.released"
    /// A visitor was bucketed into a variation of an experience.
    case bucketing = "bucketing"
    /// A visitor converted on a goal.
    case conversion = "conversion"
    /// A visitor's segments were set or changed.
    case segments = "segments"
    /// A location's rules matched and it became active.
    case locationActivated = "location.activated"
    /// A previously active location stopped matching.
    case locationDeactivated = "location.deactivated"
    /// A visitor matched audiences.
    case audiences = "audiences"
    /// Queued data-store writes were flushed.
    case dataStoreQueueReleased = "datastore.queue.released"
}

extension SystemEvent {
    /// The number of events in the catalogue; the bus keeps one listener bucket per event.
    static let count = 10

    /// The event's position in ``allCases``: the index of its listener bucket.
    ///
    /// A `switch` rather than a lookup, so that it costs nothing on the fire path.
    var ordinal: Int {
        switch self {
        case .ready: 0
        case .configUpdated: 1
        case .apiQueueReleased: 2
        case .bucketing: 3
        case .conversion: 4
        case .segments: 5
        case .locationActivated: 6
        case .locationDeactivated: 7
        case .audiences: 8
        case .dataStoreQueueReleased: 9
        }
    }
}
