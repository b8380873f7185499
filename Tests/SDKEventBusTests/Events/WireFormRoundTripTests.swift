import Foundation
import Testing

@testable import SDKEventBusCore
@testable import SDKEventBusWire

/// What `wireJSON()` writes, `init(wireJSON:)` reads back as the same value.
///
/// At the edges a bridge reaches: integer extremes, payloads that are structs, deep nesting,
/// decimals, with the probe catalogs of `WireProbeCatalogs.swift`.
@Suite struct WireFormRoundTripTests {
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
