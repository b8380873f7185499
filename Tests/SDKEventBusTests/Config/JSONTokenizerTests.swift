import Foundation
import Testing

@testable import SDKEventBusConfig
@testable import SDKEventBusCore
@testable import SDKEventBusWire

@Suite struct JSONTokenizerTests {
    /// Every token of `json` as `kind@offset`, or the failure as `failure kind@offset`.
    private func tokens(_ json: String) -> [String] {
        let bytes = Array(json.utf8)
        return bytes.withUnsafeBufferPointer { buffer in
            var tokenizer = JSONTokenizer(buffer)
            var tokens: [String] = []
            do throws(JSONTokenizer.Failure) {
                while let token = try tokenizer.next() {
                    tokens.append("\(describe(token, in: tokenizer))@\(tokenizer.tokenStart)")
                }
            } catch {
                tokens.append("failure \(error.kind)@\(error.offset)")
            }
            return tokens
        }
    }

    private func describe(_ token: JSONTokenizer.Token, in tokenizer: JSONTokenizer) -> String {
        func text(_ contents: JSONTokenizer.StringContents) -> String {
            var utf8: [UInt8] = []
            tokenizer.appendDecoded(contents, to: &utf8)
            return String(decoding: utf8, as: UTF8.self)
        }
        switch token {
        case .beginObject: return "{"
        case .endObject: return "}"
        case .beginArray: return "["
        case .endArray: return "]"
        case .key(let contents): return "key \(text(contents))"
        case .string(let contents): return "string \(text(contents))"
        case .number(let number):
            let literal = String(decoding: tokenizer.bytes[number.range], as: UTF8.self)
            return "number \(literal)\(number.hasExponent ? " with exponent" : "")"
        case .true: return "true"
        case .false: return "false"
        case .null: return "null"
        }
    }

    @Test func tokensComeInOrderWithWhereEachStarts() {
        #expect(
            tokens(#" {"a": [1, "x", true, false, null], "b" : {}, "c":[]} "#) == [
                "{@1", "key a@2", "[@7", "number 1@8", "string x@11", "true@16", "false@22", "null@29", "]@33",
                "key b@36", "{@42", "}@43", "key c@46", "[@50", "]@51", "}@52",
            ])
    }

    @Test func aScalarAloneIsAWholeBody() {
        #expect(tokens(" 12 ") == ["number 12@1"])
        #expect(tokens(#""s""#) == ["string s@0"])
    }

    @Test func stringsAreDecodedOnlyWhenAsked() throws {
        let bytes = Array(#"["plain", "a\u00e9\n\ud83d\ude00\/"]"#.utf8)
        try bytes.withUnsafeBufferPointer { buffer in
            var tokenizer = JSONTokenizer(buffer)
            _ = try tokenizer.next()
            guard case .string(let plain) = try tokenizer.next(), case .string(let escaped) = try tokenizer.next()
            else {
                Issue.record("expected two strings")
                return
            }
            #expect(!plain.hasEscapes)
            #expect(String(decoding: tokenizer.rawBytes(of: plain), as: UTF8.self) == "plain")
            #expect(escaped.hasEscapes)
            #expect(String(decoding: tokenizer.rawBytes(of: escaped), as: UTF8.self) == #"a\u00e9\n\ud83d\ude00\/"#)
            var decoded: [UInt8] = []
            tokenizer.appendDecoded(escaped, to: &decoded)
            #expect(String(decoding: decoded, as: UTF8.self) == "aé\n😀/")
        }
    }

    @Test func numbersAreTheirLiteralsWithTheExponentFlagged() {
        #expect(
            tokens("[-0, 0.5, -12.5e+10, 1E3, 123456789012345678901234567890]") == [
                "[@0", "number -0@1", "number 0.5@5", "number -12.5e+10 with exponent@10",
                "number 1E3 with exponent@21",
                "number 123456789012345678901234567890@26", "]@56",
            ])
    }

    @Test(arguments: [
        ("", "expectedValue@0"),
        ("[1,]", "expectedValue@3"),
        ("{,}", "expectedKey@1"),
        (#"{"a" 1}"#, "expectedColon@5"),
        ("[1 2]", "expectedCommaOrEnd(inObject: false)@3"),
        (#"{"a":1"#, "expectedCommaOrEnd(inObject: true)@6"),
        ("{} x", "trailingData@3"),
        ("[tru]", #"expectedLiteral("true")@1"#),
        (#"["abc"#, "unterminatedString@1"),
        ("\"a\u{1}\"", "controlCharacter(1)@2"),
        (#""\"#, "unterminatedEscape@2"),
        (#""a\x""#, "invalidEscape(120)@2"),
        (#""\u12g4""#, "expectedHexDigits@5"),
        (#""\ud800x""#, "unpairedHighSurrogate(55296)@1"),
        (#""\udc00""#, "unpairedLowSurrogate(56320)@1"),
        ("-x", "expectedDigitAfterMinus@1"),
        ("[01]", "leadingZero@1"),
        ("1.e5", "expectedFractionDigit@2"),
        ("1e+", "expectedExponentDigit@3"),
    ])
    func failuresSayWhatAndAtWhichByte(json: String, failure: String) {
        #expect(tokens(json).last == "failure \(failure)")
    }

    @Test(arguments: [
        ([0x22, 0xFF, 0x22], "invalidUTF8Lead(255)@1"),
        ([0x22, 0x61, 0xE2, 0x82, 0x22], "invalidUTF8Sequence(lead: 226)@2"),
        ([0x22, 0xED, 0xA0, 0x80, 0x22], "invalidUTF8Sequence(lead: 237)@1"),
    ])
    func malformedUTF8IsAnEncodingFailure(bytes: [UInt8], failure: String) throws {
        let thrown = bytes.withUnsafeBufferPointer { buffer -> JSONTokenizer.Failure? in
            var tokenizer = JSONTokenizer(buffer)
            do throws(JSONTokenizer.Failure) {
                while try tokenizer.next() != nil {}
                return nil
            } catch {
                return error
            }
        }
        let error = try #require(thrown)
        #expect("\(error.kind)@\(error.offset)" == failure)
        #expect(error.kind.isEncoding)
    }

    @Test func containersCloseInOrderPastSixtyFourLevels() {
        let depth = 200
        let opens = (0..<depth).map { $0.isMultiple(of: 3) ? #"{"k":"# : "[" }
        let closes = opens.reversed().map { $0 == "[" ? "]" : "}" }
        let tokens = tokens(opens.joined() + "0" + closes.joined())
        let objects = opens.filter { $0 != "[" }.count
        #expect(tokens.count == 2 * objects + (depth - objects) + 1 + depth, "\(tokens.suffix(2))")
        let ends = tokens.filter { $0.hasPrefix("}") || $0.hasPrefix("]") }.map { String($0.prefix(1)) }
        #expect(ends == closes)
        var wrong = closes
        wrong[depth - 130] = wrong[depth - 130] == "]" ? "}" : "]"
        let failure = self.tokens(opens.joined() + "0" + wrong.joined()).last
        #expect(failure?.hasPrefix("failure expectedCommaOrEnd(inObject: \(opens[129] != "[")") == true)
    }

    @Test func nestingIsBoundedOnlyByMemory() {
        let depth = 100_000
        let body = Array((String(repeating: "[", count: depth) + String(repeating: "]", count: depth)).utf8)
        let count = body.withUnsafeBufferPointer { buffer in
            var tokenizer = JSONTokenizer(buffer)
            var count = 0
            while (try? tokenizer.next()) != nil { count += 1 }
            return count
        }
        #expect(count == 2 * depth)
    }
}
