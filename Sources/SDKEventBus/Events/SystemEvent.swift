public import SDKEventBusConfig

/// A system event an SDK announces to the app: the closed, frozen catalog.
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
/// let token = bus.on(.bucketing) { payload in
///     print("bucketed", payload)
/// }
/// ```
@frozen
public enum SystemEvent: String, CaseIterable, Sendable, Codable {
    /// The SDK has its first configuration; ``/SDKEventBusConfig/CatalogClient/ready(timeout:clock:)`` returns from now on.
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

extension SystemEvent: EventCatalog {
    /// The payload sum type of the built-in catalog.
    public typealias Payload = EventPayloadValue

    /// The replay rule of this event; the single place where replay is declared.
    ///
    /// `.ready` is sticky, so `on(.ready)` after the SDK became ready still runs its callback once.
    /// `.configUpdated` replays its latest value to subscriptions that ask for it.
    public var replayRule: ReplayRule {
        switch self {
        case .ready: .sticky
        case .configUpdated: .latestOnRequest
        case .apiQueueReleased, .bucketing, .conversion, .segments, .locationActivated, .locationDeactivated,
            .audiences, .dataStoreQueueReleased:
            .none
        }
    }
}
