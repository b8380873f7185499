import Foundation
public import SDKEventBusConfig
public import SDKEventBusWire

/// The JSON wire form of the built-in events:
///
/// ```json
/// {"data":{"experienceId":"100334665","variationId":"1003142551","visitorId":"u1"},"event":"bucketing"}
/// ```
///
/// `event` is the raw value of ``SystemEvent``; `data` is the payload struct with its camelCase field
/// names, optional fields omitted when `nil`. A ``ConfigUpdatedPayload/snapshot`` keeps the CDN's
/// own snake_case form of ``ProjectConfig``. See ``WireCodablePayload`` for `init(wireJSON:)` and the
/// canonical `wireJSON()`.
extension EventPayloadValue: WireCodablePayload {
    /// Writes the payload struct: the `data` member of the wire form.
    ///
    /// - Parameter encoder: The encoder of the `data` member.
    /// - Throws: What the encoder throws, for example for a non-finite number in a snapshot.
    public func encodeData(to encoder: any Encoder) throws {
        try payload.encode(to: encoder)
    }

    /// Reads the payload struct of `event` from the `data` member of the wire form.
    ///
    /// - Parameters:
    ///   - event: The event named by the `event` member.
    ///   - decoder: The decoder of the `data` member.
    /// - Throws: A `DecodingError` when `data` is not a payload of `event`.
    public init(event: SystemEvent, dataFrom decoder: any Decoder) throws {
        func decode<Payload: TypedPayload<SystemEvent> & Decodable>(_: Payload.Type) throws -> EventPayloadValue {
            try Payload(from: decoder).checkedPayloadValue
        }
        self = try decode(event.payloadType)
    }

    /// The payload struct, as an existential.
    public var payload: any TypedPayload<SystemEvent> & Codable {
        switch self {
        case .ready(let payload): payload
        case .configUpdated(let payload): payload
        case .apiQueueReleased(let payload): payload
        case .bucketing(let payload): payload
        case .conversion(let payload): payload
        case .segments(let payload): payload
        case .locationActivated(let payload): payload
        case .locationDeactivated(let payload): payload
        case .audiences(let payload): payload
        case .dataStoreQueueReleased(let payload): payload
        }
    }
}

extension SystemEvent {
    /// The payload struct of this event.
    public var payloadType: any (TypedPayload<SystemEvent> & Codable).Type {
        switch self {
        case .ready: ReadyPayload.self
        case .configUpdated: ConfigUpdatedPayload.self
        case .apiQueueReleased: ApiQueueReleasedPayload.self
        case .bucketing: BucketingPayload.self
        case .conversion: ConversionPayload.self
        case .segments: SegmentsPayload.self
        case .locationActivated: LocationActivatedPayload.self
        case .locationDeactivated: LocationDeactivatedPayload.self
        case .audiences: AudiencesPayload.self
        case .dataStoreQueueReleased: DataStoreQueueReleasedPayload.self
        }
    }
}
