import Foundation
import Testing

@testable import SDKEventBusCore
@testable import SDKEventBusWire

/// What `wireJSON()` writes, `init(wireJSON:)` reads back as the same value.
///
/// At the edges a bridge reaches: integer extremes, payloads that are structs, deep nesting,
/// decimals. The probe catalogs (`WireProbeCatalogs.swift`) pin their bytes in
/// `Resources/wire-vectors-probe.jsonl`.
///
/// To regenerate that file after a deliberate change of the wire form, run
/// `SDKEVENTBUS_WRITE_WIRE_VECTORS=1 swift test --filter WireFormRoundTripTests` and review the diff.
@Suite struct WireFormRoundTripTests {
    /// One committed line of `wire-vectors-probe.jsonl`: a payload of a probe catalog.
    enum ProbeVector: Equatable {
        case probe(WireProbePayload)
        case moved(MovedPayload)

        func wireJSON() throws -> Data {
            switch self {
            case .probe(let payload): try payload.wireJSON()
            case .moved(let payload): try payload.wireJSON()
            }
        }

        /// Decodes `line` as a payload of this vector's catalog.
        func decodeSameCatalog(_ line: Data) throws -> ProbeVector {
            switch self {
            case .probe: .probe(try WireProbePayload(wireJSON: line))
            case .moved: .moved(try MovedPayload(wireJSON: line))
            }
        }
    }

    /// In the order of the committed lines; new vectors go at the end.
    static let vectors: [ProbeVector] = [
        .probe(.integers(.minimums)),
        .probe(.integers(.maximums)),
        // Just past Int64, where a Double would round to 2^63.
        .probe(.integers(IntegerFields(uint: UInt(Int64.max) + 1, uint64: UInt64(Int64.max) + 1))),
        .moved(MovedPayload(from: 1, to: 2)),
        .moved(MovedPayload(from: .min, to: .max)),
    ]

    static let vectorsURL = URL(fileURLWithPath: #filePath)
        .deletingLastPathComponent().deletingLastPathComponent()
        .appendingPathComponent("Resources/wire-vectors-probe.jsonl")

    @Test func everyProbeVectorRoundTripsByteForByte() throws {
        if ProcessInfo.processInfo.environment["SDKEVENTBUS_WRITE_WIRE_VECTORS"] == "1" {
            let lines = try Self.vectors.map { String(decoding: try $0.wireJSON(), as: UTF8.self) }
            try (lines.joined(separator: "\n") + "\n").write(to: Self.vectorsURL, atomically: true, encoding: .utf8)
        }
        let url = try #require(
            Bundle.module.url(forResource: "wire-vectors-probe", withExtension: "jsonl", subdirectory: "Resources"))
        let lines = try String(contentsOf: url, encoding: .utf8)
            .split(separator: "\n", omittingEmptySubsequences: true).map { Data($0.utf8) }
        try #require(lines.count == Self.vectors.count, "one committed line per vector")
        for (line, expected) in zip(lines, Self.vectors) {
            let decoded = try expected.decodeSameCatalog(line)
            #expect(decoded == expected, "\(String(decoding: line, as: UTF8.self))")
            #expect(try decoded.wireJSON() == line, "re-encoding is byte-for-byte stable")
            #expect(try expected.wireJSON() == line, "the Swift value encodes to the committed bytes")
        }
    }

    // MARK: Integers

    @Test(arguments: [IntegerFields.minimums, IntegerFields.maximums])
    func everyIntegerTypeSurvivesTheWireFormAtItsExtremes(fields: IntegerFields) throws {
        let bytes = try WireProbePayload.integers(fields).wireJSON()
        #expect(try WireProbePayload(wireJSON: bytes) == .integers(fields), "\(String(decoding: bytes, as: UTF8.self))")
    }

    @Test(arguments: [UInt64(Int64.max) + 1, UInt64(Int64.max) + 2, 10_000_000_000_000_000_000, .max - 1, .max])
    func everyUInt64BeyondInt64IsWrittenExactly(value: UInt64) throws {
        let bytes = try WireProbePayload.integers(IntegerFields(uint64: value)).wireJSON()
        #expect(String(decoding: bytes, as: UTF8.self).contains(",\"uint64\":\(value),"))
        #expect(try WireProbePayload(wireJSON: bytes) == .integers(IntegerFields(uint64: value)))
    }

    // MARK: Struct payloads

    /// The defaults derive `data` from an enum's case; a struct has no case, and writing its first
    /// field as `data` loses the rest: the default refuses, and says what to write instead.
    @Test func aStructPayloadIsNeverWrittenWithFieldsMissing() {
        let payload = SteppedPayload(from: 1, to: 2)
        do {
            let bytes = try payload.wireJSON()
            Issue.record("wrote \(String(decoding: bytes, as: UTF8.self))")
        } catch let EncodingError.invalidValue(_, context) {
            #expect(context.debugDescription.contains("SteppedPayload is not an enum"), "\(context.debugDescription)")
            #expect(context.debugDescription.contains("encodeData(to:)"), "\(context.debugDescription)")
        } catch {
            Issue.record("threw \(error)")
        }
    }

    @Test func aStructPayloadWithItsOwnWireFormIsWrittenWholeAndReadBack() throws {
        let payload = MovedPayload(from: 1, to: 2)
        let bytes = try payload.wireJSON()
        #expect(String(decoding: bytes, as: UTF8.self) == #"{"data":{"from":1,"to":2},"event":"moved"}"#)
        #expect(try MovedPayload(wireJSON: bytes) == payload)
    }

    // MARK: Nesting

    /// The wire form of `NestedArrays(depth: d)` nests `d + 2` levels: `init(wireJSON:)` reads up to
    /// 128, counting the event's object and `data`, and `wireJSON()` writes up to the same 128.
    @Test(arguments: [1, 100, 125, 126])
    func whatWireJSONWritesAtTheNestingLimitInitWireJSONReads(depth: Int) throws {
        let payload = WireProbePayload.nested(NestedArrays(depth: depth))
        #expect(try WireProbePayload(wireJSON: payload.wireJSON()) == payload)
    }

    @Test(arguments: [127, 128, 500])
    func aPayloadNestedBeyondWhatInitWireJSONReadsIsRefusedWhenWritten(depth: Int) {
        do {
            let bytes = try WireProbePayload.nested(NestedArrays(depth: depth)).wireJSON()
            Issue.record("wrote \(bytes.count) bytes nested \(depth + 2) levels deep")
        } catch let EncodingError.invalidValue(_, context) {
            #expect(context.debugDescription.contains("128"), "\(context.debugDescription)")
        } catch {
            Issue.record("threw \(error)")
        }
    }

    // MARK: Decimals

    /// A `Decimal` of at most 15 significant digits, or a whole one within 64 bits, comes back equal.
    ///
    /// The documented rule: a number that is not an integer within Int64 or UInt64 is read as the
    /// nearest `Double`, and 15 significant digits are what a `Double` always carries.
    @Test(arguments: ["0.1", "19.99", "-0.000123", "123456789.012345", "1e-100", "9e120", "18446744073709551615"])
    func aDecimalOfAtMostFifteenSignificantDigitsOrAWholeOneWithin64BitsSurvivesTheWireForm(text: String) throws {
        let decimal = try #require(Decimal(string: text))
        let payload = WireProbePayload.measurements(Measurements(decimal: decimal))
        #expect(try WireProbePayload(wireJSON: payload.wireJSON()) == payload)
    }

    /// Any other `Decimal` becomes the nearest `Double`'s shortest digits, as the wire-form guide says.
    @Test(arguments: [
        ("3.14159265358979323846", "3.141592653589793"),
        ("0.12345678901234567890123", "0.12345678901234568"),
        ("123456789012345678901234567890", "1.2345678901234568e+29"),
    ])
    func aDecimalWithMoreDigitsThanADoubleCarriesBecomesTheNearestDouble(text: String, written: String) throws {
        let payload = WireProbePayload.measurements(Measurements(decimal: try #require(Decimal(string: text))))
        let bytes = try payload.wireJSON()
        #expect(String(decoding: bytes, as: UTF8.self).contains("\"decimal\":\(written),"))
        let decoded = try WireProbePayload(wireJSON: bytes)
        #expect(decoded == .measurements(Measurements(decimal: try #require(Decimal(string: written)))))
    }
}
