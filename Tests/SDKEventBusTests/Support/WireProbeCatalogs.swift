import Foundation

@testable import SDKEventBusCore
@testable import SDKEventBusWire

/// A catalog whose payloads probe the edges of the wire form: every integer type at its extremes,
/// floating-point fields, and data nested as deep as asked.
enum WireProbeEvent: String, EventCatalog {
    case integers
    case measurements
    case nested

    typealias Payload = WireProbePayload
}

/// The payload of a ``WireProbeEvent``: one case per event, each wrapping its struct, with the wire
/// form derived from the structs.
enum WireProbePayload: WireCodablePayload, Equatable {
    case integers(IntegerFields)
    case measurements(Measurements)
    case nested(NestedArrays)

    var event: WireProbeEvent {
        switch self {
        case .integers: .integers
        case .measurements: .measurements
        case .nested: .nested
        }
    }

    static let payloadTypes: [any (TypedPayload & Decodable).Type] = [
        IntegerFields.self, Measurements.self, NestedArrays.self,
    ]
}

/// A field of every fixed-width integer type.
struct IntegerFields: Codable, Equatable, TypedPayload {
    static let event = WireProbeEvent.integers

    var int: Int
    var int8: Int8
    var int16: Int16
    var int32: Int32
    var int64: Int64
    var uint: UInt
    var uint8: UInt8
    var uint16: UInt16
    var uint32: UInt32
    var uint64: UInt64

    /// Every field at its type's minimum.
    static let minimums = IntegerFields(
        int: .min, int8: .min, int16: .min, int32: .min, int64: .min, uint: .min, uint8: .min, uint16: .min,
        uint32: .min, uint64: .min)
    /// Every field at its type's maximum.
    static let maximums = IntegerFields(
        int: .max, int8: .max, int16: .max, int32: .max, int64: .max, uint: .max, uint8: .max, uint16: .max,
        uint32: .max, uint64: .max)

    init(
        int: Int = 0, int8: Int8 = 0, int16: Int16 = 0, int32: Int32 = 0, int64: Int64 = 0, uint: UInt = 0,
        uint8: UInt8 = 0, uint16: UInt16 = 0, uint32: UInt32 = 0, uint64: UInt64 = 0
    ) {
        self.int = int
        self.int8 = int8
        self.int16 = int16
        self.int32 = int32
        self.int64 = int64
        self.uint = uint
        self.uint8 = uint8
        self.uint16 = uint16
        self.uint32 = uint32
        self.uint64 = uint64
    }

    init?(_ value: WireProbePayload) { if case .integers(let payload) = value { self = payload } else { return nil } }
    var payloadValue: WireProbePayload { .integers(self) }
}

/// A `Double`, a `Float` and a `Decimal`.
struct Measurements: Codable, Equatable, TypedPayload {
    static let event = WireProbeEvent.measurements

    var double: Double = 0
    var float: Float = 0
    var decimal: Decimal = 0

    init?(_ value: WireProbePayload) {
        if case .measurements(let payload) = value { self = payload } else { return nil }
    }
    var payloadValue: WireProbePayload { .measurements(self) }

    init(double: Double = 0, float: Float = 0, decimal: Decimal = 0) {
        self.double = double
        self.float = float
        self.decimal = decimal
    }
}

/// `{"arrays":[[…[]…]]}`: `depth` arrays, each the only element of the one around it, so that the
/// wire form nests `depth + 2` levels deep (the event's object, `data`, then the arrays).
struct NestedArrays: Codable, Equatable, TypedPayload {
    static let event = WireProbeEvent.nested

    var depth: Int

    private enum CodingKeys: String, CodingKey {
        case arrays
    }

    init(depth: Int) {
        self.depth = depth
    }

    init(from decoder: any Decoder) throws {
        var array = try decoder.container(keyedBy: CodingKeys.self).nestedUnkeyedContainer(forKey: .arrays)
        depth = 1
        while !array.isAtEnd {
            array = try array.nestedUnkeyedContainer()
            depth += 1
        }
    }

    func encode(to encoder: any Encoder) throws {
        var container = encoder.container(keyedBy: CodingKeys.self)
        var array = container.nestedUnkeyedContainer(forKey: .arrays)
        for _ in 1..<depth {
            array = array.nestedUnkeyedContainer()
        }
    }

    init?(_ value: WireProbePayload) { if case .nested(let payload) = value { self = payload } else { return nil } }
    var payloadValue: WireProbePayload { .nested(self) }
}

/// A catalog of one event whose payload is a struct, not an enum: its wire form is written by hand.
enum MoveEvent: String, EventCatalog {
    case moved

    typealias Payload = MovedPayload
}

/// A struct payload with the wire form written by hand, both ways: `{"from":…,"to":…}`.
struct MovedPayload: WireCodablePayload, Equatable {
    var from: Int
    var to: Int

    var event: MoveEvent { .moved }

    private enum CodingKeys: String, CodingKey {
        case from
        case to
    }

    init(from: Int, to: Int) {
        self.from = from
        self.to = to
    }

    func encodeData(to encoder: any Encoder) throws {
        var container = encoder.container(keyedBy: CodingKeys.self)
        try container.encode(from, forKey: .from)
        try container.encode(to, forKey: .to)
    }

    init(event: MoveEvent, dataFrom decoder: any Decoder) throws {
        let container = try decoder.container(keyedBy: CodingKeys.self)
        from = try container.decode(Int.self, forKey: .from)
        to = try container.decode(Int.self, forKey: .to)
    }
}

/// A catalog of one event whose payload is a struct that leaves its wire form to the defaults.
enum StepEvent: String, EventCatalog {
    case stepped

    typealias Payload = SteppedPayload
}

/// A struct payload with two fields and no `encodeData(to:)` of its own.
struct SteppedPayload: WireCodablePayload, Equatable {
    var from: Int
    var to: Int

    var event: StepEvent { .stepped }
}
