import Foundation
import Testing

@testable import SDKEventBus
@testable import SDKEventBusConfig
@testable import SDKEventBusCore
@testable import SDKEventBusWire

/// Each rule of the canonical JSON form, and that different spellings of one value (other key
/// orders, whitespace, escapes, number forms, as other Foundations write them) give the same bytes.
@Suite struct CanonicalJSONTests {
    func canonical(_ json: String) throws -> String {
        String(decoding: try CanonicalJSON.canonicalize(Data(json.utf8)), as: UTF8.self)
    }

    // MARK: Keys

    @Test func keysSortByTheirUTF8BytesAsUnsignedBytes() throws {
        let json = #"{"item9":1,"é":2,"alpha":3,"z":4,"":5,"Zeta":6,"item10":7,"a":8,"ab":9,"~":10}"#
        #expect(
            try canonical(json) == #"{"":5,"Zeta":6,"a":8,"ab":9,"alpha":3,"item10":7,"item9":1,"z":4,"~":10,"é":2}"#)
    }

    @Test func keysSortByTheirDecodedBytesNotTheirEscapes() throws {
        // '"' (0x22) sorts before '#' (0x23), although its escape '\"' starts with 0x5C.
        #expect(try canonical(##"{"#":1,"\"":2}"##) == ##"{"\"":2,"#":1}"##)
        // A control character sorts before every printable one, although it is written as \u00xx.
        #expect(try canonical(#"{" ":1,"\u0001":2}"#) == #"{"\u0001":2," ":1}"#)
        // An escaped and a raw spelling of the same key are the same key, so they sort the same.
        #expect(try canonical(#"{"\u00e9":1,"f":2}"#) == #"{"f":2,"é":1}"#)
    }

    @Test func keysAreNotUnicodeNormalized() throws {
        // Precomposed "é" (C3 A9) and "e" + combining acute (65 CC 81) are two keys; "e…" sorts first.
        #expect(try canonical(#"{"\u00e9":1,"e\u0301":2}"#) == "{\"e\u{301}\":2,\"é\":1}")
    }

    @Test func everyNestedObjectIsSortedAndArraysKeepTheirOrder() throws {
        let json = #"{"b":[{"y":1,"x":2},[3,1,2]],"a":{"d":{"f":null,"e":true},"c":false}}"#
        #expect(try canonical(json) == #"{"a":{"c":false,"d":{"e":true,"f":null}},"b":[{"x":2,"y":1},[3,1,2]]}"#)
    }

    // MARK: Strings

    @Test(arguments: [
        (#""a\/b""#, #""a/b""#),
        (#""\u0041\u00e9\u00E9""#, #""Aéé""#),
        (#""\ud83e\uddea\uD83E\uDDEA""#, #""🧪🧪""#),
        (#""\u2028\u2029""#, "\"\u{2028}\u{2029}\""),
        (#""\u007f""#, "\"\u{7F}\""),
        (#""\u0022\u005c""#, #""\"\\""#),
        (#""\u0008\u000c\u000A\u000d\u0009""#, #""\b\f\n\r\t""#),
        (#""\u0000\u001F\u001f\u000b""#, #""\u0000\u001f\u001f\u000b""#),
        (#""\"\\\/\b\f\n\r\t""#, #""\"\\/\b\f\n\r\t""#),
        ("\"\u{FEFF}مرحبا 👩‍👩‍👧\"", "\"\u{FEFF}مرحبا 👩‍👩‍👧\""),
    ])
    func stringsHaveExactlyOneEscaping(json: String, expected: String) throws {
        #expect(try canonical(json) == expected)
    }

    @Test func everyControlCharacterHasItsOneEscape() throws {
        let short: [UInt8: String] = [0x08: #"\b"#, 0x09: #"\t"#, 0x0A: #"\n"#, 0x0C: #"\f"#, 0x0D: #"\r"#]
        for byte in UInt8(0)..<0x20 {
            let hex = String(byte, radix: 16)
            let upper = #"\u00"# + (byte < 0x10 ? "0" : "") + hex.uppercased()
            let expected = short[byte] ?? #"\u00"# + (byte < 0x10 ? "0" : "") + hex
            #expect(try canonical("\"\(upper)\"") == "\"\(expected)\"", "U+00\(hex)")
        }
    }

    // MARK: Numbers

    @Test(arguments: [
        ("0", "0"),
        ("-0", "0"),
        ("-0.0", "0"),
        ("1.0", "1"),
        ("2.5e0", "2.5"),
        ("1e16", "10000000000000000"),
        ("1E+16", "10000000000000000"),
        ("1.0e16", "10000000000000000"),
        ("10000000000000000", "10000000000000000"),
        ("1.2345678901234568e+17", "123456789012345680"),
        ("123456789012345678", "123456789012345678"),
        ("9223372036854775807", "9223372036854775807"),
        ("-9223372036854775808", "-9223372036854775808"),
        ("-9223372036854775809", "-9223372036854775808"),
        ("1e300", "1e+300"),
        ("-1.5E-7", "-1.5e-07"),
        ("1e-5", "1e-05"),
        ("0.1", "0.1"),
        ("0.10000000000000001", "0.1"),
        ("33.5", "33.5"),
        ("5e-324", "5e-324"),
        ("1e-400", "0"),
        ("1.7976931348623157e308", "1.7976931348623157e+308"),
    ])
    func numbersHaveOneForm(json: String, expected: String) throws {
        #expect(try canonical(json) == expected)
    }

    /// An integer that fits `UInt64` but not `Int64` is written as it is, not as the nearest
    /// `Double` (which `UInt64.max` is not, and `2^63 + 1` reads back as `2^63`); and a `Double`
    /// whose value is such an integer is written as that integer, however an encoder spelled it.
    @Test(arguments: [
        ("9223372036854775808", "9223372036854775808"),
        ("9223372036854775809", "9223372036854775809"),
        ("18446744073709551615", "18446744073709551615"),
        ("18446744073709551616", "1.8446744073709552e+19"),
        ("1e19", "10000000000000000000"),
        ("1.0E+19", "10000000000000000000"),
        ("9.223372036854775808e18", "9223372036854775808"),
        ("1.8446744073709550e19", "18446744073709549568"),
        ("1.8446744073709552e+19", "1.8446744073709552e+19"),
        ("-9223372036854775808.0", "-9223372036854775808"),
    ])
    func everyIntegerWithinInt64OrUInt64IsWrittenExactly(json: String, expected: String) throws {
        #expect(try canonical(json) == expected)
    }

    /// A `Double` written as `JSONEncoder` writes it, with 17 significant digits (as `%.17g`), or as
    /// an exact integer, canonicalizes to one form that reads back as the same `Double`.
    @Test func everyForeignSpellingOfADoubleGivesTheSameBytes() throws {
        var random = SplitMix64(seed: 0x5EED_CA70)
        var values: [Double] = [
            0, -0.0, 1, -1, 0x1p53, 0x1p53 + 2, 0x1p63, -0x1p63, 0x1p63 + 2048, 0x1p64 - 2048, 0x1p64,
            .leastNonzeroMagnitude,
        ]
        values += (-30...30).map { pow(10, Double($0)) }
        for _ in 0..<2_000 {
            values.append(Double(bitPattern: random.next()))
            values.append(Double(Int64(bitPattern: random.next())))
            values.append(Double(random.next()))
            values.append(Double(Int.random(in: -1_000_000...1_000_000, using: &random)) / 1_000)
        }
        var failures: [String] = []
        for value in values where value.isFinite {
            let encoded = try canonical(String(decoding: try JSONEncoder().encode([value]), as: UTF8.self))
            var spellings = [String(format: "[%.17g]", value), "[\(value)]"]
            // Whole numbers within Int64 or UInt64 are written as integers.
            let isInteger = value.rounded(.towardZero) == value && value >= -0x1p63 && value < 0x1p64
            if isInteger {
                spellings.append(String(format: "[%.0f]", value))
            }
            for spelling in spellings where try canonical(spelling) != encoded {
                failures.append("\(spelling) is not \(encoded)")
            }
            let number = String(encoded.dropFirst().dropLast())
            if Double(number) != value || isInteger != number.allSatisfy({ $0 == "-" || $0.isASCII && $0.isNumber }) {
                failures.append("\(number) for \(value)")
            }
            if (try? JSONSerialization.jsonObject(with: Data(encoded.utf8))) == nil {
                failures.append("\(encoded) is not valid JSON")
            }
        }
        #expect(failures.isEmpty, "\(failures.count) failures, first: \(failures.prefix(5))")
    }

    // MARK: Literals and containers

    @Test(arguments: [
        ("true", "true"),
        ("false", "false"),
        ("null", "null"),
        (#""""#, #""""#),
        ("{}", "{}"),
        ("[]", "[]"),
        ("{ }", "{}"),
        ("[ \n ]", "[]"),
        (#"{"a":{},"b":[],"c":[{}],"d":[[]]}"#, #"{"a":{},"b":[],"c":[{}],"d":[[]]}"#),
        (#"[ true , false , null , "" , { } , [ ] ]"#, #"[true,false,null,"",{},[]]"#),
    ])
    func literalsAndEmptyContainersAreWrittenAsTheyAre(json: String, expected: String) throws {
        #expect(try canonical(json) == expected)
    }

    @Test func oneValueSpelledManyWaysGivesTheSameBytes() throws {
        let canonicalForm = #"{"":null,"Z":true,"a":"\t/é","b":[1,0.5,{"x":[],"y":{}}]}"#
        let spellings = [
            canonicalForm,
            #"{"b":[1.0,5e-1,{"y":{},"x":[]}],"a":"\u0009\/\u00e9","Z":true,"":null}"#,
            #"""
            {
              "Z" : true,
              "" : null,
              "a" : "\t/\u00E9",
              "b" : [ 1E0, 0.50, { "x" : [ ], "y" : { } } ]
            }
            """#,
            "\r\n\t{\"a\":\"\\u0009\\/é\",\"b\":[10e-1,50E-2,{\"x\":[],\"y\":{}}],\"\":null,\"Z\":true} ",
        ]
        for spelling in spellings {
            #expect(try canonical(spelling) == canonicalForm, "\(spelling)")
        }
    }

    @Test func everyJSONEncoderFormattingGivesTheSameBytes() throws {
        let value: [String: [String: String]] = [
            "properties": ["Zeta": "a/b", "alpha": "\u{1F}", "item10": "é", "item9": "\u{2028}", "": "z"]
        ]
        let formattings: [JSONEncoder.OutputFormatting] = [
            [], .sortedKeys, .prettyPrinted, .withoutEscapingSlashes,
            [.sortedKeys, .prettyPrinted, .withoutEscapingSlashes],
        ]
        let results = try Set(
            formattings.map { formatting in
                let encoder = JSONEncoder()
                encoder.outputFormatting = formatting
                return try CanonicalJSON.canonicalize(try encoder.encode(value))
            })
        #expect(
            results == [
                Data(#"{"properties":{"":"z","Zeta":"a/b","alpha":"\u001f","item10":"é","item9":"\#u{2028}"}}"#.utf8)
            ])
    }

    @Test func canonicalFormIsAFixedPoint() throws {
        let json = #"{"b":[1.0,1e16,0.1,"\/\u00e9\u001F"],"a":{"é":null,"z":-0}}"#
        let once = try CanonicalJSON.canonicalize(Data(json.utf8))
        #expect(try CanonicalJSON.canonicalize(once) == once)
    }

    @Test(arguments: [512, 10_000])
    func deepNestingNeedsNoRecursion(depth: Int) throws {
        let arrays = String(repeating: "[ ", count: depth) + "1.0" + String(repeating: " ]", count: depth)
        #expect(
            try canonical(arrays) == String(repeating: "[", count: depth) + "1" + String(repeating: "]", count: depth))
        let objects = String(repeating: #"{"b":0,"a":"#, count: depth) + "{}" + String(repeating: "}", count: depth)
        let expected = String(repeating: #"{"a":"#, count: depth) + "{}" + String(repeating: #","b":0}"#, count: depth)
        #expect(try canonical(objects) == expected)
    }

    // MARK: Errors

    @Test(arguments: [
        ("", JSONDecodingError.Code.invalidSyntax),
        ("  ", .invalidSyntax),
        ("{", .invalidSyntax),
        (#"{"a":1,}"#, .invalidSyntax),
        (#"{"a" 1}"#, .invalidSyntax),
        ("{1:2}", .invalidSyntax),
        ("[1 2]", .invalidSyntax),
        ("[1,]", .invalidSyntax),
        ("[1}", .invalidSyntax),
        ("{} {}", .invalidSyntax),
        ("01", .invalidSyntax),
        ("1.", .invalidSyntax),
        ("-", .invalidSyntax),
        ("1e", .invalidSyntax),
        ("+1", .invalidSyntax),
        ("tru", .invalidSyntax),
        ("nul", .invalidSyntax),
        (#""abc"#, .invalidSyntax),
        (#""\x""#, .invalidSyntax),
        (#""\u12""#, .invalidSyntax),
        (#""\ud800""#, .invalidSyntax),
        (#""\udc00""#, .invalidSyntax),
        (#""\ud800\u0041""#, .invalidSyntax),
        ("\"\u{1}\"", .invalidSyntax),
        ("1e999", .numberOutOfRange),
        ("-1e999", .numberOutOfRange),
        (#"{"a":1,"b":2,"a":3}"#, .duplicateKey),
        (#"{"é":1,"\u00e9":2}"#, .duplicateKey),
    ])
    func malformedJSONIsATypedError(json: String, code: JSONDecodingError.Code) {
        do {
            let result = try CanonicalJSON.canonicalize(Data(json.utf8))
            Issue.record("accepted \(json) as \(String(decoding: result, as: UTF8.self))")
        } catch {
            #expect(error.code == code, "\(error)")
            #expect(error.byteOffset != nil, "\(error)")
        }
    }

    @Test(arguments: [
        [0x22, 0xFF, 0x22], [0x22, 0xC0, 0xAF, 0x22], [0x22, 0xED, 0xA0, 0x80, 0x22], [0x22, 0xE2, 0x82],
    ])
    func invalidUTF8IsATypedError(bytes: [UInt8]) {
        do {
            _ = try CanonicalJSON.canonicalize(Data(bytes))
            Issue.record("accepted \(bytes)")
        } catch {
            #expect(error.code == .invalidEncoding, "\(error)")
        }
    }

    @Test func errorsSayWhere() {
        do {
            _ = try CanonicalJSON.canonicalize(Data("{\n  \"a\": 1,\n  \"a\": 2\n}".utf8))
            Issue.record("accepted a duplicate key")
        } catch {
            #expect(error.code == .duplicateKey)
            #expect((error.line, error.column, error.byteOffset) == (3, 3, 14))
        }
    }
}
