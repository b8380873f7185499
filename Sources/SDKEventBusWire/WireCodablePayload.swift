public import Foundation
public import SDKEventBusCore

/// A catalog payload with a JSON wire form, for bridges (React Native, Flutter) and analytics
/// forwarding.
///
/// ```json
/// {"data":{"changedKeys":["new-checkout"]},"event":"flags.changed"}
/// ```
///
/// `event` is the event's raw value; `data` is what ``encodeData(to:)`` writes. Conforming gives the
/// payload `Codable` in this form, ``init(wireJSON:)`` with typed errors, and a canonical
/// ``wireJSON()``. For an enum whose cases each wrap one `Codable` payload struct, both directions
/// are derived: list the structs, and each event's `data` decodes as the struct whose
/// ``/SDKEventBusCore/TypedPayload/event`` it is:
///
/// ```swift
/// extension FlagEventPayload: WireCodablePayload {
///     static let payloadTypes: [any (TypedPayload & Decodable).Type] = [
///         InitializedPayload.self, FlagsChangedPayload.self, FlagErrorPayload.self,
///     ]
/// }
/// ```
///
/// Write ``encodeData(to:)`` and ``init(event:dataFrom:)`` yourself for any other shape, a payload
/// that is a struct included: the derived ones refuse it rather than write some of its fields.
/// `CatalogConformance` round-trips a sample of every event through the wire form, so a payload
/// missing from the list, or decoded as another event's, fails its test.
public protocol WireCodablePayload: CatalogPayload, Codable {
    /// Writes the payload's fields: the `data` member of the wire form.
    ///
    /// Derived for an enum whose cases each wrap one `Encodable` value (the value is `data`) or
    /// none (`data` is `{}`); write it for any other shape. For a payload that is a struct or a
    /// class, the derived one throws rather than write some of its fields.
    ///
    /// - Parameter encoder: The encoder of the `data` member.
    /// - Throws: What the encoder throws.
    func encodeData(to encoder: any Encoder) throws

    /// Reads the payload of `event` from the `data` member of the wire form.
    ///
    /// Derived from ``payloadTypes``: `data` decodes as the type whose ``/SDKEventBusCore/TypedPayload/event`` is
    /// `event`, wrapped by its ``/SDKEventBusCore/TypedPayload/payloadValue``.
    ///
    /// - Parameters:
    ///   - event: The event named by the `event` member.
    ///   - decoder: The decoder of the `data` member.
    /// - Throws: A `DecodingError` when `data` is not a payload of `event`.
    init(event: Event, dataFrom decoder: any Decoder) throws

    /// The `Decodable` payload struct of each event, from which ``init(event:dataFrom:)`` is derived;
    /// empty unless you list them.
    static var payloadTypes: [any (TypedPayload & Decodable).Type] { get }
}

/// How deep a wire form's objects and arrays may nest, the event's object and `data` included.
///
/// As deep as a configuration's, by default. ``WireCodablePayload/wireJSON()`` writes no deeper than
/// ``WireCodablePayload/init(wireJSON:)`` reads.
private let wireMaximumNestingDepth = 128

/// What the derived `encodeData(to:)` writes: the value the payload's enum case wraps, or `nil` for
/// a case without one.
///
/// Not generic, so that every payload type shares its code.
///
/// - Throws: `EncodingError.invalidValue` for a payload that is not an enum (a struct's or a class's
///   fields cannot be derived, and writing one of them would lose the others), or whose case wraps
///   a value that is not one `Encodable` value.
@inline(never)
private func derivedData(of payload: Any, event: String, codingPath: [any CodingKey]) throws -> (any Encodable)? {
    let mirror = Mirror(reflecting: payload)
    guard case .enum? = mirror.displayStyle else {
        let description = """
            \(type(of: payload)) is not an enum: the wire form derives data only for an enum whose cases \
            each wrap one Encodable value, and would lose fields of this payload; implement \
            encodeData(to:) and init(event:dataFrom:)
            """
        throw EncodingError.invalidValue(payload, .init(codingPath: codingPath, debugDescription: description))
    }
    guard let wrapped = mirror.children.first?.value else { return nil }
    guard let value = wrapped as? any Encodable else {
        throw EncodingError.invalidValue(
            wrapped,
            .init(
                codingPath: codingPath,
                debugDescription: "the \(event) case wraps \(type(of: wrapped)), which is not one Encodable value: "
                    + "implement encodeData(to:)"))
    }
    return value
}

/// The error of `wireJSON()` when the encoder's output cannot be canonicalized: nested deeper than
/// `init(wireJSON:)` reads (128 levels), or, never for `JSONEncoder`'s output, not valid JSON.
@inline(never)
private func canonicalizationError(_ payload: Any, event: String, _ error: JSONDecodingError) -> EncodingError {
    let description =
        error.code == .nestingTooDeep
        ? """
        the \(event) payload nests objects and arrays more than 128 levels deep, counting the event's \
        object and data, and init(wireJSON:) reads no deeper: nest data at most 127 levels
        """
        : "JSONEncoder wrote JSON that cannot be canonicalized: \(error)"
    return EncodingError.invalidValue(
        payload, .init(codingPath: [], debugDescription: description, underlyingError: error))
}

/// The members of the wire form.
private enum WireFormKey: String, CodingKey {
    case event
    case data
}

extension WireCodablePayload {
    /// None: implement ``init(event:dataFrom:)`` instead.
    public static var payloadTypes: [any (TypedPayload & Decodable).Type] { [] }

    /// Decodes `data` as the type in ``payloadTypes`` whose ``/SDKEventBusCore/TypedPayload/event`` is `event`.
    ///
    /// - Parameters:
    ///   - event: The event named by the `event` member.
    ///   - decoder: The decoder of the `data` member.
    /// - Throws: A `DecodingError` when `data` is not a payload of `event`, or when no listed type is
    ///   `event`'s.
    public init(event: Event, dataFrom decoder: any Decoder) throws {
        func decode<Payload: TypedPayload & Decodable>(_ type: Payload.Type) throws -> Self? {
            guard (Payload.event as? Event) == event else { return nil }
            return try Payload(from: decoder).payloadValue as? Self
        }
        for type in Self.payloadTypes {
            if let payload = try decode(type) {
                self = payload
                return
            }
        }
        throw DecodingError.dataCorrupted(
            .init(
                codingPath: decoder.codingPath,
                debugDescription: "no type in \(Self.self).payloadTypes is the payload of \(event.rawValue): "
                    + "list it, or implement init(event:dataFrom:)"))
    }

    /// Writes the value the payload's case wraps, or nothing for a case without one.
    ///
    /// Only an enum's `data` is derived. A payload that is a struct or a class has no case to
    /// unwrap, and writing one of its fields would lose the others: implement
    /// ``encodeData(to:)`` and ``init(event:dataFrom:)`` for it.
    ///
    /// - Parameter encoder: The encoder of the `data` member.
    /// - Throws: `EncodingError.invalidValue` when the payload is not an enum, or its case wraps a
    ///   value that is not `Encodable`, or more than one value; what the value's encoding throws.
    public func encodeData(to encoder: any Encoder) throws {
        guard let value = try derivedData(of: self, event: event.rawValue, codingPath: encoder.codingPath) else {
            return
        }
        try value.encode(to: encoder)
    }

    /// Decodes an event from its wire form.
    ///
    /// - Parameter decoder: The decoder to read from.
    /// - Throws: ``/SDKEventBusWire/JSONDecodingError`` when `event` is missing or unknown, or `data` does not match.
    public init(from decoder: any Decoder) throws {
        let container: KeyedDecodingContainer<WireFormKey>
        do {
            container = try decoder.container(keyedBy: WireFormKey.self)
        } catch {
            throw JSONDecodingError(code: .invalidSyntax, reason: "expected an object with \"event\" and \"data\"")
        }
        let rawEvent: String
        do {
            guard let name = try container.decodeIfPresent(String.self, forKey: .event) else {
                throw JSONDecodingError(
                    code: .missingField, path: "event", reason: "expected the event's name as a string")
            }
            rawEvent = name
        } catch is DecodingError {
            throw JSONDecodingError(code: .wrongType, path: "event", reason: "expected the event's name as a string")
        }
        guard let event = Event(rawValue: rawEvent) else {
            throw JSONDecodingError(
                code: .unknownEvent,
                path: "event",
                reason: "\"\(rawEvent)\" is not an event of the catalog"
            )
        }
        guard container.contains(.data) else {
            throw JSONDecodingError(code: .missingField, path: "data", reason: "expected the \(rawEvent) payload")
        }
        do {
            self = try Self(event: event, dataFrom: container.superDecoder(forKey: .data))
        } catch let error as DecodingError where JSONDecodingError.isLocated(error) {
            // An unlocated error (a number that does not fit its field) goes on as it is: the
            // decoding of the whole wire form then locates it, as for a configuration body.
            let detail = JSONDecodingError(error)
            throw JSONDecodingError(
                code: detail.code,
                path: detail.path,
                reason: "not a \(rawEvent) payload: \(detail.reason)"
            )
        }
    }

    /// Encodes the event in its wire form.
    ///
    /// - Parameter encoder: The encoder to write to.
    /// - Throws: What the encoder throws, for example for a non-finite number.
    public func encode(to encoder: any Encoder) throws {
        var container = encoder.container(keyedBy: WireFormKey.self)
        try container.encode(event, forKey: .event)
        try encodeData(to: container.superEncoder(forKey: .data))
    }

    /// Decodes an event from its JSON wire form, as strictly as a configuration body.
    ///
    /// ```swift
    /// let payload = try EventPayloadValue(wireJSON: Data(#"{"event":"ready","data":{}}"#.utf8))
    /// ```
    ///
    /// The bytes must be UTF-8 JSON (a leading byte order mark is skipped) without duplicate keys,
    /// nested at most 128 deep; syntax errors name the line, column and byte, every other error the path
    /// (`data.eventCount`) and the reason, also for a number that does not fit its field.
    ///
    /// - Parameter wireJSON: A JSON object `{"event": …, "data": {…}}`.
    /// - Throws: ``/SDKEventBusWire/JSONDecodingError``: `emptyBody`, `invalidEncoding`,
    ///   `invalidSyntax`, `nestingTooDeep` or `duplicateKey` for bytes that are not such JSON
    ///   (`invalidSyntax` at the first byte of a value that is not an object);
    ///   `missingField` or `wrongType` for a missing or non-string `event` and a missing `data`;
    ///   `unknownEvent`; and the code of what is wrong inside `data`.
    public init(wireJSON: Data) throws(JSONDecodingError) {
        try JSONSyntaxValidator.validate(wireJSON, maximumDepth: wireMaximumNestingDepth, requiresObject: true)
        // A leading byte order mark, which the validator skipped, is skipped by `JSONDecoder` too.
        do {
            self = try JSONDecoder().decode(Self.self, from: wireJSON)
        } catch let error as JSONDecodingError {
            throw error
        } catch {
            throw JSONDecodingError(decoding: Self.self, from: wireJSON, failedWith: error)
        }
    }

    /// The event's canonical JSON wire form: equal events encode to the same bytes on every platform.
    ///
    /// `JSONEncoder` alone is not canonical: Foundations differ in how they sort keys, escape strings
    /// and write numbers. So the encoder's output is rewritten by these rules:
    ///
    /// - No whitespace.
    /// - Object keys are sorted by their UTF-8 bytes, as unsigned bytes: `""` first, `"Zeta"` before
    ///   `"alpha"`, `"item10"` before `"item9"`, `"z"` before `"é"`. Keys are not Unicode normalized.
    /// - Strings escape `"` and `\` with a backslash, and backspace, form feed, newline, carriage
    ///   return and tab as `\b`, `\f`, `\n`, `\r` and `\t`; the other control characters U+0000 to
    ///   U+001F as `\u00xx`, lowercase; everything else (`/`, non-ASCII, U+2028 and U+2029 included)
    ///   is written as raw UTF-8.
    /// - An integer from `Int64.min` to `UInt64.max` is written as is (`-0` as `0`), so every value
    ///   of every integer type comes back exactly. Any other number is read as a `Double`: a whole
    ///   number in that range is written as an integer (`1.0` as `1`, `1e16` as
    ///   `10000000000000000`); anything else as Swift's `Double.description`, the shortest form that
    ///   reads back as the same `Double` (`0.1`, `1e-05`, `1e+300`). So a `Decimal` with more
    ///   significant digits than a `Double` carries (about 15) changes: `3.14159265358979323846` is
    ///   written `3.141592653589793`. Send a value that must stay exact as a string.
    /// - `true`, `false`, `null` as they are; arrays in order.
    ///
    /// What it writes, ``init(wireJSON:)`` reads: it refuses a payload nested more than 128 levels
    /// deep, counting the event's object and `data`, as that initializer does.
    ///
    /// - Returns: The UTF-8 bytes of the JSON object.
    /// - Throws: `EncodingError` for a non-finite number, for a payload nested deeper than 128 levels,
    ///   and for a payload that is not an enum when the derived ``encodeData(to:)`` writes it.
    public func wireJSON() throws -> Data {
        let json = try JSONEncoder().encode(self)
        do {
            return try CanonicalJSON.canonicalize(json, maximumDepth: wireMaximumNestingDepth)
        } catch {
            throw canonicalizationError(self, event: event.rawValue, error)
        }
    }
}
