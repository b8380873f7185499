import Foundation
import Testing

@testable import SDKEventBus
@testable import SDKEventBusConfig
@testable import SDKEventBusCore
@testable import SDKEventBusWire

@Suite struct JSONSyntaxValidatorTests {
    /// The error validating `json` throws, or `nil` when it is valid.
    private func validationError(
        _ json: String, maximumDepth: Int = ProjectConfig.maximumNestingDepth
    ) -> JSONDecodingError? {
        do {
            try JSONSyntaxValidator.validate(Data(json.utf8), maximumDepth: maximumDepth)
            return nil
        } catch {
            return error
        }
    }

    /// `{"k0":0,"k1":1,…}` with `count` members, the one at `index` replaced by `replacement`.
    private func wideObject(count: Int, replacing index: Int? = nil, with replacement: String = "") -> String {
        var members = (0..<count).map { #""k\#($0)":\#($0)"# }
        if let index { members[index] = replacement }
        return "{" + members.joined(separator: ",") + "}"
    }

    // MARK: Descriptions

    @Test func descriptionSaysWhatIsKnownOfTheOffendingBytesPosition() {
        let located = JSONDecodingError(code: .invalidSyntax, line: 2, column: 5, byteOffset: 12, reason: "r")
        #expect(located.description == "JSON rejected (invalidSyntax) at line 2, column 5 (byte 12): r")
        let byteOnly = JSONDecodingError(code: .invalidSyntax, byteOffset: 7, reason: "r")
        #expect(byteOnly.description == "JSON rejected (invalidSyntax) at byte 7: r")
        let pathOnly = JSONDecodingError(code: .invalidValue, path: "a.b", reason: "r")
        #expect(pathOnly.description == "JSON rejected (invalidValue), at a.b: r")
    }

    // MARK: Duplicate keys

    @Test func duplicateKeyIsFoundAtEveryDepth() throws {
        for depth in 1...ProjectConfig.maximumNestingDepth {
            let outer = depth - 1
            let body =
                String(repeating: #"{"k":"#, count: outer) + #"{"x":1,"x":2}"# + String(repeating: "}", count: outer)
            let error = try #require(validationError(body), "depth \(depth)")
            #expect(error.code == .duplicateKey)
            #expect(error.path == (Array(repeating: "k", count: outer) + ["x"]).joined(separator: "."))
            #expect((error.line, error.column, error.byteOffset) == (1, outer * 5 + 8, outer * 5 + 7))
            #expect(error.reason == #"the key "x" appears twice in the same object"#)
        }
    }

    @Test func duplicateKeyInsideArraysNamesItsPath() throws {
        let error = try #require(validationError(#"[{"a":[0,{"b":{"c":1,"c":2}}]}]"#))
        #expect(error.code == .duplicateKey)
        #expect(error.path == "[0].a[1].b.c")
        #expect(error.byteOffset == 21)
    }

    @Test func duplicateIsFoundAsTheThirtyThousandthOfFortyThousandKeys() throws {
        // The 30,000th key repeats the 18th.
        let body = wideObject(count: 40_000, replacing: 29_999, with: #""k17":0"#)
        let error = try #require(validationError(body))
        #expect(error.code == .duplicateKey)
        #expect(error.path == "k17")
        let offset = try #require(body.utf8.firstRange(of: #","k17":0"#.utf8)).lowerBound
        let byteOffset = body.utf8.distance(from: body.utf8.startIndex, to: offset) + 1
        #expect((error.line, error.column, error.byteOffset) == (1, byteOffset + 1, byteOffset))
        #expect(error.reason == #"the key "k17" appears twice in the same object"#)
    }

    @Test func duplicateSpelledWithAnEscapeIsFoundAmongFortyThousandKeys() throws {
        let body = wideObject(count: 40_000, replacing: 29_999, with: #""\u006b17":0"#)
        let error = try #require(validationError(body))
        #expect(error.code == .duplicateKey)
        #expect(error.path == "k17")
        #expect(error.reason == #"the key "k17" appears twice in the same object"#)
    }

    @Test func fortyThousandDistinctKeysAreAccepted() throws {
        #expect(validationError(wideObject(count: 40_000)) == nil)
        let body =
            #"{"account_id":"1","project":{"id":"1","name":"n"},"experiences":[],"extra":"#
            + wideObject(count: 40_000) + "}"
        #expect(try ProjectConfig(jsonData: Data(body.utf8)).accountId == "1")
    }

    // MARK: Paths and lines

    /// A key that holds `.`, `[`, `]`, `"`, `\` or a control character, or is empty, would read as
    /// the path's own syntax: it is quoted, as a JSON string in brackets, so no two paths are alike.
    @Test(arguments: [
        (#"{"a.b":{"x":1,"x":2}}"#, #"["a.b"].x"#),
        (#"{"a":{"b":{"x":1,"x":2}}}"#, "a.b.x"),
        (#"[{"a]":[{"":{"x":1,"x":2}}]}]"#, #"[0]["a]"][0][""].x"#),
        (#"{"k":{"x.y":1,"x.y":2}}"#, #"k["x.y"]"#),
        (#"{"k":{"x\u0000":1,"x\u0000":2}}"#, #"k["x\u0000"]"#),
    ])
    func aKeyThatWouldReadAsPathSyntaxIsQuotedInThePath(json: String, path: String) throws {
        let error = try #require(validationError(json))
        #expect(error.code == .duplicateKey)
        #expect(error.path == path, "\(error)")
    }

    /// RFC 8259 allows CR, LF and CRLF between tokens: each is one line break.
    @Test(arguments: [
        ("{\n\"a\":1,\n\"a\":2}", 3, 1),
        ("{\r\"a\":1,\r\"a\":2}", 3, 1),
        ("{\r\n\"a\":1,\r\n\"a\":2}", 3, 1),
        ("{\r\n\r\"b\":1,\n\r\"a\":1,  \"a\":2}", 5, 9),
        ("{\"b\":1,\r\r\n\n  \"b\":2}", 4, 3),
    ])
    func lineBreaksAreCountedAtCRLFAndCRLFAlike(json: String, line: Int, column: Int) throws {
        let error = try #require(validationError(json))
        #expect(error.code == .duplicateKey)
        #expect((error.line, error.column) == (line, column), "\(error)")
    }

    @Test func aSyntaxErrorAfterCarriageReturnsIsOnItsLine() throws {
        let error = try #require(validationError("{\r  \"a\": 1,\r  \"b\": 2,\r  \"c\": 3,}"))
        #expect(error.code == .invalidSyntax)
        #expect((error.line, error.column, error.byteOffset) == (4, 10, 31), "\(error)")
    }

    /// Two spellings of one key, the key they decode to, and its path (quoted where the key would
    /// read as the path's syntax).
    static let sameKeys: [(first: String, second: String, decoded: String, path: String)] = [
        (#""a""#, #""\u0061""#, "a", "a"),
        (#""\u0061""#, #""a""#, "a", "a"),
        (#""é""#, #""\u00e9""#, "é", "é"),
        (#""\u00E9""#, #""\u00e9""#, "é", "é"),
        (#""😀""#, #""\ud83d\ude00""#, "😀", "😀"),
        (#""\"""#, #""\u0022""#, "\"", #"["\""]"#),
        (#""/""#, #""\/""#, "/", "/"),
        (#""\n""#, #""\u000a""#, "\n", #"["\n"]"#),
        (#""a\\b""#, #""a\u005cb""#, "a\\b", #"["a\\b"]"#),
        (#""""#, #""""#, "", #"[""]"#),
    ]

    @Test(arguments: sameKeys)
    func keysThatDecodeToTheSameBytesAreDuplicates(first: String, second: String, decoded: String, path: String) throws
    {
        let body = "{" + first + ":1," + second + ":2}"
        let error = try #require(validationError(body), "\(body)")
        #expect(error.code == .duplicateKey)
        #expect(error.path == path)
        let byteOffset = 1 + first.utf8.count + 3
        #expect((error.line, error.column, error.byteOffset) == (1, byteOffset + 1, byteOffset))
        #expect(error.reason == "the key \"\(decoded)\" appears twice in the same object")
    }

    /// Keys that decode to different bytes, though some are equal as Swift strings.
    static let differentKeys: [(first: String, second: String)] = [
        (#""é""#, #""e\u0301""#),
        (#""\u00e9""#, #""e\u0301""#),
        (#""é""#, "\"e\u{301}\""),
        (#""a""#, #""A""#),
        (#""a""#, #""a ""#),
        (#""a""#, #""ab""#),
        (#""\u0061""#, #""\u0061b""#),
        (#""""#, #"" ""#),
    ]

    @Test(arguments: differentKeys)
    func keysThatDecodeToDifferentBytesAreDistinct(first: String, second: String) {
        #expect(validationError("{" + first + ":1," + second + ":2}") == nil)
    }

    @Test(arguments: [
        #"[{"a":1},{"a":1}]"#,
        #"{"x":{"a":1},"y":{"a":1}}"#,
        #"{"a":{"a":{"a":1}}}"#,
        #"{"a":{"b":1},"b":2}"#,
        #"[{"a":1,"b":{"a":1}},{"a":1,"b":{"a":1}}]"#,
        #"{"a":[{"a":1},{"a":1}],"b":{"a":[{"a":1}]}}"#,
    ])
    func sameKeyInDifferentObjectsIsNoDuplicate(body: String) {
        #expect(validationError(body) == nil)
    }

    @Test func parentStillFindsItsDuplicateAfterANestedObjectCloses() throws {
        let error = try #require(validationError(#"{"a":{"b":1},"b":2,"a":3}"#))
        #expect(error.code == .duplicateKey)
        #expect(error.path == "a")
        #expect(error.byteOffset == 19)
    }

    @Test func duplicateInALaterSiblingIsFound() throws {
        let error = try #require(validationError(#"[{"a":1},{"a":1,"a":2}]"#))
        #expect(error.code == .duplicateKey)
        #expect(error.path == "[1].a")
        #expect(error.byteOffset == 16)
    }

    // MARK: Paths

    @Test func pathNamesAKeyDecodedFromEscapes() throws {
        let error = try #require(validationError(#"{"\u0061":{"b\/c":tru}}"#))
        #expect(error.code == .invalidSyntax)
        #expect(error.path == "a.b/c")
        #expect(error.byteOffset == 18)
    }

    /// Bodies that go wrong, and the path of their error.
    ///
    /// The path is the innermost container still open where the input went wrong, with the member
    /// or element whose value was being read then (after its `:` or the array's `,`, or inside the
    /// value). Between the members of a container, nothing of a member is named: not the one that
    /// ended, nor a key whose `:` is missing.
    static let pathsWhereTheInputWentWrong: [(body: String, path: String, reason: String)] = [
        // The issue's document: `data` is complete, the outer object is not.
        (#"{"event":"payment.failed","data":{"code":"x"}"#, "", "unexpected end of body inside an object"),
        (#"{"event":"payment.failed","data":{"code":"x""#, "data", "unexpected end of body inside an object"),
        (#"{"a":{"b":{"c":1}}"#, "", "unexpected end of body inside an object"),
        (#"{"a":{"b":{"c":1}"#, "a", "unexpected end of body inside an object"),
        (#"{"data":{"code":"x"},"more":[1,2"#, "more", "unexpected end of body inside an array"),
        (#"[1,2"#, "", "unexpected end of body inside an array"),
        (#"[[1,2]"#, "", "unexpected end of body inside an array"),
        (#"[{"a":1}"#, "", "unexpected end of body inside an array"),
        (#"{"a":[1,{"b":2}"#, "a", "unexpected end of body inside an array"),
        // Right after a key.
        (#"{"a":1,"b""#, "", "expected ':' after an object key"),
        (#"{"a":{"b""#, "a", "expected ':' after an object key"),
        // Right after a colon: the member's value is being read.
        (#"{"a":"#, "a", "unexpected end of body; expected a value"),
        (#"{"a":{"b":"#, "a.b", "unexpected end of body; expected a value"),
        // Right after a comma.
        (#"{"a":1,"#, "", "unexpected end of body; expected an object key"),
        (#"{"a":{"b":1,"#, "a", "unexpected end of body; expected an object key"),
        (#"[1,"#, "[1]", "unexpected end of body; expected a value"),
        (#"{"a":[1,"#, "a[1]", "unexpected end of body; expected a value"),
        // Inside a string: a value's, then a key's (whose member is not known yet).
        (#"{"a":"x"#, "a", "unexpected end of body inside a string"),
        (#"{"a":[1,"x"#, "a[1]", "unexpected end of body inside a string"),
        (#"{"a":1,"b"#, "", "unexpected end of body inside a string"),
        (#"{"a":{"b"#, "a", "unexpected end of body inside a string"),
        // Not truncated: a member or an element that no comma follows.
        (#"{"a":1 "b":2}"#, "", "expected ',' or '}' after an object member"),
        (#"{"a":[1 2]}"#, "a", "expected ',' or ']' after an array element"),
        (#"{"a":{},}"#, "", "expected a string key"),
    ]

    @Test(arguments: pathsWhereTheInputWentWrong)
    func aSyntaxErrorsPathNamesTheInnermostContainerStillOpen(body: String, path: String, reason: String) throws {
        let error = try #require(validationError(body), "\(body)")
        #expect(error.code == .invalidSyntax, "\(body)")
        #expect(error.path == path, "\(body)")
        #expect(error.reason == reason, "\(body)")
    }

    // MARK: Nesting

    @Test func nestingAtTheLimitIsAcceptedAndOneDeeperIsRejected() throws {
        let limit = ProjectConfig.maximumNestingDepth
        #expect(validationError(String(repeating: "[", count: limit) + String(repeating: "]", count: limit)) == nil)
        let objects = String(repeating: #"{"k":"#, count: limit - 1) + "{}" + String(repeating: "}", count: limit - 1)
        #expect(validationError(objects) == nil)

        let error = try #require(
            validationError(String(repeating: "[", count: limit + 1) + String(repeating: "]", count: limit + 1)))
        #expect(error.code == .nestingTooDeep)
        #expect(error.path == String(repeating: "[0]", count: limit))
        #expect(error.byteOffset == limit)
        #expect(error.reason == "objects and arrays are nested more than \(limit) levels deep")
    }

    @Test func tenThousandDeepBodyIsRejectedAtTheLimit() throws {
        let body = String(repeating: #"{"k":["#, count: 5_000) + String(repeating: "]}", count: 5_000)
        let error = try #require(validationError(body))
        // Each `{"k":[` opens two containers: the 129th is the 65th `{`.
        #expect(error.code == .nestingTooDeep)
        #expect(error.path == Array(repeating: "k[0]", count: 64).joined(separator: "."))
        #expect(error.byteOffset == 64 * 6)
    }

    @Test func deepNestingIsScannedWithoutRecursion() {
        // Far deeper than a recursive scanner's stack allows, with a limit that permits it.
        let depth = 200_000
        let body = String(repeating: "[", count: depth) + String(repeating: "]", count: depth)
        #expect(validationError(body, maximumDepth: depth) == nil)
    }
}
