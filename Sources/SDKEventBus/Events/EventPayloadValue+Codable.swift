public import Foundation

/// The JSON wire form of events, for bridges (React Native, Flutter) and analytics forwarding:
///
/// ```json
/// {"data":{"experienceId":"100334665","variationId":"1003142551","visitorId":"u1"},"event":"bucketing"}
/// ```
///
/// `event` is the raw value of ``SystemEvent``; `data` is the payload struct with its camelCase field
/// names, optional fields omitted when `nil`. A ``ConfigUpdatedPayload/snapshot`` keeps the CDN's
/// own snake_case form of ``ProjectConfig``.
extension EventPayloadValue: Codable {
    private enum CodingKeys: String, CodingKey {
        case event
        case data
    }

    /// Decodes an event from its wire form.
    ///
    /// - Parameter decoder: The decoder to read from.
    /// - Throws: ``EventDecodingError`` when `event` is missing or unknown, or `data` does not match.
    public init(from decoder: any Decoder) throws {
        let container: KeyedDecodingContainer<CodingKeys>
        do {
            container = try decoder.container(keyedBy: CodingKeys.self)
        } catch {
            throw EventDecodingError(code: .invalidJSON, reason: "expected an object with \"event\" and \"data\"")
        }
        guard let rawEvent = try? container.decodeIfPresent(String.self, forKey: .event) else {
            throw EventDecodingError(
                code: .missingField, path: "event", reason: "expected the event's name as a string")
        }
        guard let event = SystemEvent(rawValue: rawEvent) else {
            throw EventDecodingError(
                code: .unknownEvent,
                path: "event",
                reason: "\"\(rawEvent)\" is not an event of the catalogue"
            )
        }
        guard container.contains(.data) else {
            throw EventDecodingError(code: .missingField, path: "data", reason: "expected the \(rawEvent) payload")
        }
        func decode<Payload: EventPayload>(_: Payload.Type) throws -> EventPayloadValue {
            try container.decode(Payload.self, forKey: .data).payloadValue
        }
        do {
            self = try decode(event.payloadType)
        } catch let error as DecodingError {
            let detail = ConfigDecodingError(error)
            throw EventDecodingError(
                code: .invalidData,
                path: detail.path,
                reason: "not a \(rawEvent) payload: \(detail.reason)"
            )
        }
    }

    /// Encodes the event in its wire form.
    ///
    /// - Parameter encoder: The encoder to write to.
    /// - Throws: What the encoder throws, for example for a non-finite number in a snapshot.
    public func encode(to encoder: any Encoder) throws {
        var container = encoder.container(keyedBy: CodingKeys.self)
        try container.encode(event, forKey: .event)
        try container.encode(payload, forKey: .data)
    }

    /// The payload struct, as an existential.
    public var payload: any EventPayload {
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

    /// Decodes an event from its JSON wire form.
    ///
    /// ```swift
    /// let payload = try EventPayloadValue(wireJSON: Data(#"{"event":"ready","data":{}}"#.utf8))
    /// ```
    ///
    /// - Parameter wireJSON: A JSON object `{"event": …, "data": {…}}`.
    /// - Throws: ``EventDecodingError``.
    public init(wireJSON: Data) throws(EventDecodingError) {
        do {
            self = try JSONDecoder().decode(EventPayloadValue.self, from: wireJSON)
        } catch let error as EventDecodingError {
            throw error
        } catch {
            throw EventDecodingError(code: .invalidJSON, reason: "the bytes are not valid JSON")
        }
    }

    /// The event's canonical JSON wire form: keys sorted, slashes unescaped, no whitespace, so equal
    /// events always encode to the same bytes.
    ///
    /// - Returns: The UTF-8 bytes of the JSON object.
    /// - Throws: `EncodingError` for a non-finite number in a configuration snapshot.
    public func wireJSON() throws -> Data {
        let encoder = JSONEncoder()
        encoder.outputFormatting = [.sortedKeys, .withoutEscapingSlashes]
        return try encoder.encode(self)
    }
}

extension SystemEvent {
    /// The payload struct of this event.
    public var payloadType: any EventPayload.Type {
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
