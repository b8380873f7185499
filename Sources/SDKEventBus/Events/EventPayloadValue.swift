public import SDKEventBusConfig

/// The payload of a system event: one case per ``SystemEvent``, named the same, each wrapping its
/// payload struct.
///
/// A payload names its own event, so a fire whose event and payload disagree cannot be written:
///
/// ```swift
/// emitter.fire(.bucketing(BucketingPayload(experienceId: "e1", variationId: "v1", visitorId: "u1")))
/// ```
///
/// Listeners receive the value and match the case they subscribed to:
///
/// ```swift
/// let token = bus.on(.bucketing) { payload in
///     guard case .bucketing(let bucketing) = payload else { return }
///     print(bucketing.variationId)
/// }
/// ```
///
/// Closed for good, as the catalog is: its cases are ``SystemEvent``'s, one each, and change only
/// with it. It is not `@frozen`, so a `switch` over it in a binary SDK's library-evolution build
/// still ends with `@unknown default`.
public enum EventPayloadValue: CatalogPayload, Equatable {
    /// The payload of ``SystemEvent/ready``.
    ///
    /// Stored out of line: ``ReadyPayload`` holds a `Readiness.Source`, a resilient type of another
    /// module in a binary SDK's build (library evolution). Stored inline, it would leave the whole
    /// enum's layout to be computed at run time, and every copy and `switch` of every payload, the
    /// `event` of each fire among them, would go through the runtime. This event fires once.
    indirect case ready(ReadyPayload)
    /// The payload of ``SystemEvent/configUpdated``.
    ///
    /// Stored out of line: a configuration snapshot is large and this event is rare, so the other
    /// cases stay small to copy on the delivery path.
    indirect case configUpdated(ConfigUpdatedPayload)
    /// The payload of ``SystemEvent/apiQueueReleased``.
    case apiQueueReleased(ApiQueueReleasedPayload)
    /// The payload of ``SystemEvent/bucketing``.
    case bucketing(BucketingPayload)
    /// The payload of ``SystemEvent/conversion``.
    case conversion(ConversionPayload)
    /// The payload of ``SystemEvent/segments``.
    case segments(SegmentsPayload)
    /// The payload of ``SystemEvent/locationActivated``.
    case locationActivated(LocationActivatedPayload)
    /// The payload of ``SystemEvent/locationDeactivated``.
    case locationDeactivated(LocationDeactivatedPayload)
    /// The payload of ``SystemEvent/audiences``.
    case audiences(AudiencesPayload)
    /// The payload of ``SystemEvent/dataStoreQueueReleased``.
    case dataStoreQueueReleased(DataStoreQueueReleasedPayload)

    /// The event this payload belongs to.
    public var event: SystemEvent {
        switch self {
        case .ready: .ready
        case .configUpdated: .configUpdated
        case .apiQueueReleased: .apiQueueReleased
        case .bucketing: .bucketing
        case .conversion: .conversion
        case .segments: .segments
        case .locationActivated: .locationActivated
        case .locationDeactivated: .locationDeactivated
        case .audiences: .audiences
        case .dataStoreQueueReleased: .dataStoreQueueReleased
        }
    }
}
