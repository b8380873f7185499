import Foundation
import Testing

@testable import SDKEventBus
@testable import SDKEventBusConfig
@testable import SDKEventBusCore
@testable import SDKEventBusWire

/// The JSON wire form against the committed vectors in `Resources/wire-vectors.jsonl`: one canonical
/// object per line, in the order of ``WireFormTests/vectors``.
///
/// To regenerate the file after a deliberate change of the wire form, run
/// `SDKEVENTBUS_WRITE_WIRE_VECTORS=1 swift test --filter WireFormTests` and review the diff: a line
/// that existed must not change unless the wire form was deliberately changed.
@Suite struct WireFormTests {
    static let vectors: [EventPayloadValue] = [
        .ready(ReadyPayload()),
        .configUpdated(ConfigUpdatedPayload(snapshot: nil)),
        .configUpdated(
            ConfigUpdatedPayload(
                snapshot: ProjectConfig(
                    accountId: "10035569",
                    project: .init(id: "10034190", name: "Prüfung – 実験 🧪", type: "fullstack"),
                    experiences: [
                        .init(
                            id: "100334665",
                            key: "checkout/button",
                            name: "Checkout",
                            status: "active",
                            audienceIds: ["10033684"],
                            variations: [.init(id: "1", key: "a", name: "A", trafficAllocation: 33.5)]
                        )
                    ],
                    features: [.init(id: "10031", key: "f", name: "F", variables: [.init(key: "on", type: "boolean")])]
                )
            )
        ),
        .apiQueueReleased(ApiQueueReleasedPayload(eventCount: 0)),
        .apiQueueReleased(ApiQueueReleasedPayload(eventCount: .max)),
        .apiQueueReleased(ApiQueueReleasedPayload(eventCount: .min)),
        .bucketing(BucketingPayload(experienceId: "", variationId: "", visitorId: "")),
        .bucketing(BucketingPayload(experienceId: "100334665", variationId: "1003142551", visitorId: "visitor-42")),
        .conversion(ConversionPayload(goalId: "100322784", visitorId: "\"quoted\" \\ back/slash\n\t\u{0}")),
        .conversion(ConversionPayload(goalId: "goal", visitorId: "مرحبا e\u{301} 👩‍👩‍👧 \u{FEFF}")),
        .segments(SegmentsPayload(visitorId: "u1", segments: Segments())),
        .segments(
            SegmentsPayload(
                visitorId: "u1",
                segments: Segments(
                    browser: "CH",
                    devices: ["desktop", "tablet"],
                    source: "search",
                    campaign: "black-friday",
                    visitorType: "returning",
                    country: "DE",
                    customSegments: []
                )
            )
        ),
        .locationActivated(LocationActivatedPayload(properties: [:])),
        .locationActivated(LocationActivatedPayload(properties: ["location": "events", "ü": "✓", "": "empty key"])),
        .locationDeactivated(LocationDeactivatedPayload()),
        .audiences(AudiencesPayload(audienceIds: [], visitorId: "u1")),
        .audiences(AudiencesPayload(audienceIds: (0..<50).map { "a\($0)" }, visitorId: "u1")),
        .dataStoreQueueReleased(DataStoreQueueReleasedPayload()),
        // Added with the canonical form; new vectors go at the end so that lines keep their numbers.
        // Keys in UTF-8 byte order, which is not the order every Foundation's `.sortedKeys` gives.
        .locationActivated(
            LocationActivatedPayload(properties: ["alpha": "a", "Zeta": "Z", "item9": "9", "item10": "10"])),
        .locationActivated(LocationActivatedPayload(properties: ["z": "last ASCII", "é": "after z", "": "first"])),
        // Control characters: the short escapes, and \u00xx in lowercase for the others; DEL, '/',
        // U+2028 and U+2029 raw.
        .locationActivated(
            LocationActivatedPayload(properties: [
                "control\u{1}": "\u{0}\u{1}\u{8}\u{9}\u{A}\u{B}\u{C}\u{D}\u{1B}\u{1F}\u{7F}",
                "path/to": "a/b \u{2028}\u{2029}",
            ])),
        // Whole-number doubles as integers, others in shortest form.
        .configUpdated(
            ConfigUpdatedPayload(
                snapshot: ProjectConfig(
                    accountId: "1",
                    project: .init(id: "2", name: "P", type: "fullstack"),
                    experiences: [
                        .init(
                            id: "3",
                            key: "e",
                            name: "E",
                            status: "active",
                            audienceIds: [],
                            variations: [
                                .init(id: "4", key: "a", name: "A", trafficAllocation: 100),
                                .init(id: "5", key: "b", name: "B", trafficAllocation: 0.1),
                                .init(id: "6", key: "c", name: "C", trafficAllocation: 1e-7),
                            ]
                        )
                    ]
                )
            )
        ),
    ]

    static let vectorsURL = URL(fileURLWithPath: #filePath)
        .deletingLastPathComponent().deletingLastPathComponent()
        .appendingPathComponent("Resources/wire-vectors.jsonl")

    static func committedLines() throws -> [Data] {
        let url = try #require(
            Bundle.module.url(forResource: "wire-vectors", withExtension: "jsonl", subdirectory: "Resources"))
        let text = try String(contentsOf: url, encoding: .utf8)
        return text.split(separator: "\n", omittingEmptySubsequences: true).map { Data($0.utf8) }
    }

    @Test func vectorsCoverEveryEvent() {
        #expect(Set(Self.vectors.map(\.event)) == Set(SystemEvent.allCases))
    }

    @Test func everyVectorRoundTripsByteForByte() throws {
        if ProcessInfo.processInfo.environment["SDKEVENTBUS_WRITE_WIRE_VECTORS"] == "1" {
            let lines = try Self.vectors.map { String(decoding: try $0.wireJSON(), as: UTF8.self) }
            try (lines.joined(separator: "\n") + "\n").write(to: Self.vectorsURL, atomically: true, encoding: .utf8)
        }
        let lines = try Self.committedLines()
        try #require(lines.count == Self.vectors.count, "one committed line per vector")
        for (line, expected) in zip(lines, Self.vectors) {
            let decoded = try EventPayloadValue(wireJSON: line)
            #expect(decoded == expected, "\(String(decoding: line, as: UTF8.self))")
            #expect(try decoded.wireJSON() == line, "re-encoding is byte-for-byte stable")
            #expect(try expected.wireJSON() == line, "the Swift value encodes to the committed bytes")
        }
    }

    @Test func wireObjectNamesTheEventByItsRawValue() throws {
        for payload in SamplePayloads.all {
            let object = try JSONSerialization.jsonObject(with: payload.wireJSON()) as? [String: Any]
            #expect(object?["event"] as? String == payload.event.rawValue)
            #expect(object?["data"] is [String: Any])
        }
    }

    @Test func payloadFieldsUseCamelCaseNames() throws {
        let text = String(decoding: try SamplePayloads.sample(.bucketing).wireJSON(), as: UTF8.self)
        #expect(text == #"{"data":{"experienceId":"e1","variationId":"v1","visitorId":"u1"},"event":"bucketing"}"#)
    }

    @Test(arguments: [
        (#"{"event":"bucketed","data":{}}"#, JSONDecodingError.Code.unknownEvent, "event"),
        (#"{"event":"Ready","data":{}}"#, .unknownEvent, "event"),
        (#"{"data":{}}"#, .missingField, "event"),
        (#"{"event":7,"data":{}}"#, .wrongType, "event"),
        (#"{"event":"ready"}"#, .missingField, "data"),
        (#"{"event":"bucketing","data":{"experienceId":"e","variationId":"v"}}"#, .missingField, "data.visitorId"),
        (
            #"{"event":"bucketing","data":{"experienceId":"e","variationId":"v","visitorId":1}}"#, .wrongType,
            "data.visitorId"
        ),
        (#"{"event":"api.queue.released","data":{"eventCount":"12"}}"#, .wrongType, "data.eventCount"),
        (#"{"event":"api.queue.released","data":{"eventCount":1.5}}"#, .wrongType, "data.eventCount"),
        (
            #"{"event":"api.queue.released","data":{"eventCount":99999999999999999999}}"#, .numberOutOfRange,
            "data.eventCount"
        ),
        (#"{"event":"audiences","data":[]}"#, .wrongType, "data"),
        (#"["ready"]"#, .invalidSyntax, ""),
        (#"{"event":"ready","data":{}"#, .invalidSyntax, ""),
        ("", .emptyBody, ""),
        (" \n", .emptyBody, ""),
        (#"{"event":"ready","data":{},}"#, .invalidSyntax, ""),
        (#"{"event":"bucketing","event":"ready","data":{}}"#, .duplicateKey, "event"),
        ("\u{FEFF}\u{FEFF}" + #"{"event":"ready","data":{}}"#, .invalidSyntax, ""),
    ])
    func malformedWireObjectIsATypedError(json: String, code: JSONDecodingError.Code, path: String) {
        do {
            _ = try EventPayloadValue(wireJSON: Data(json.utf8))
            Issue.record("accepted \(json)")
        } catch {
            #expect(error.code == code, "\(error)")
            #expect(error.path == path, "\(error)")
        }
    }

    /// `data` is complete; the outer object is not: the error names the outer object (the root,
    /// path ""), not `data`.
    @Test func aWireDocumentTruncatedAtItsEndIsReportedAtTheOuterObject() {
        let json = #"{"event":"conversion","data":{"goalId":"g","visitorId":"v"}"#
        do {
            _ = try EventPayloadValue(wireJSON: Data(json.utf8))
            Issue.record("accepted a truncated document")
        } catch {
            #expect(error.code == .invalidSyntax)
            #expect(error.path == "", "\(error)")
            #expect(error.reason == "unexpected end of body inside an object")
            #expect(error.byteOffset == json.utf8.count)
        }
    }

    @Test func wireSyntaxErrorsNameTheLineColumnAndByteLikeAConfigurationBody() {
        let json = "{\"event\":\"ready\",\n \"data\":{},}"
        do {
            _ = try EventPayloadValue(wireJSON: Data(json.utf8))
            Issue.record("accepted a trailing comma")
        } catch {
            #expect(error.code == .invalidSyntax)
            #expect(error.line == 2 && error.column == 12 && error.byteOffset == 29, "\(error)")
        }
    }

    @Test func aWireObjectNestedDeeperThanAConfigurationMayIsRejected() {
        let deep = String(repeating: "[", count: 200) + String(repeating: "]", count: 200)
        do {
            _ = try EventPayloadValue(wireJSON: Data((#"{"event":"ready","data":{"x":"# + deep + "}}").utf8))
            Issue.record("accepted 200 levels of nesting")
        } catch {
            #expect(error.code == .nestingTooDeep, "\(error)")
        }
    }

    @Test(arguments: [
        ("[]", 1, 1, "an array"),
        (#"["ready"]"#, 1, 1, "an array"),
        (#""ready""#, 1, 1, "a string"),
        ("null", 1, 1, "null"),
        ("\u{FEFF}7", 1, 1, "a number"),
        (" \r\n\ttrue", 2, 2, "a boolean"),
    ])
    func aWireBodyThatIsNotAnObjectIsReportedAtItsFirstByte(json: String, line: Int, column: Int, found: String) {
        do {
            _ = try EventPayloadValue(wireJSON: Data(json.utf8))
            Issue.record("accepted \(json)")
        } catch {
            #expect(error.code == .invalidSyntax, "\(error)")
            #expect(error.reason == "expected an object at the top level, found \(found)", "\(error)")
            #expect(error.line == line && error.column == column, "\(error)")
            #expect(error.path == "", "\(error)")
        }
    }

    /// A key that holds `.`, `[`, `]`, `"`, `\` or a control character, or is empty, would read as
    /// the path's own syntax or break a log line: it is quoted, as a JSON string in brackets.
    @Test(arguments: [
        (#"{"a.b":1}"#, #"data.properties["a.b"]"#),
        (#"{"a":{"b":1}}"#, "data.properties.a"),
        (#"{"":1}"#, #"data.properties[""]"#),
        (#"{"x[0]":1}"#, #"data.properties["x[0]"]"#),
        (#"{"say \"hi\"":1}"#, #"data.properties["say \"hi\""]"#),
        (#"{"back\\slash":1}"#, #"data.properties["back\\slash"]"#),
        (#"{"new\nline":1}"#, #"data.properties["new\nline"]"#),
        (#"{"ü-ß 1":1}"#, "data.properties.ü-ß 1"),
    ])
    func aKeyThatWouldReadAsPathSyntaxIsQuotedInTheErrorsPath(properties: String, path: String) {
        let json = #"{"event":"location.activated","data":{"properties":"# + properties + "}}"
        do {
            _ = try EventPayloadValue(wireJSON: Data(json.utf8))
            Issue.record("accepted \(json)")
        } catch {
            #expect(error.code == .wrongType, "\(error)")
            #expect(error.path == path, "\(error)")
        }
    }

    /// `JSONDecoder` gives a dictionary's key `"5"` an integer value too: it is still a key, not an
    /// array's index.
    @Test func aNumericKeyIsNamedAsAKeyNotAnIndexInTheErrorsPath() {
        let json = #"{"event":"location.activated","data":{"properties":{"5":1}}}"#
        do {
            _ = try EventPayloadValue(wireJSON: Data(json.utf8))
            Issue.record("accepted \(json)")
        } catch {
            #expect(error.path == "data.properties.5", "\(error)")
        }
    }

    /// A number too close to zero for its field is reported as such, not as too large.
    ///
    /// `1e-400` is valid JSON, and no `Double` holds it: it would round to zero.
    @Test(arguments: [
        (#"{"double":1e-400,"float":0,"decimal":0}"#, "data.double", "1e-400", "Double", "5e-324"),
        (#"{"double":-2.4e-324,"float":0,"decimal":0}"#, "data.double", "-2.4e-324", "Double", "5e-324"),
        (#"{"double":0,"float":1e-50,"decimal":0}"#, "data.float", "1e-50", "Float", "1e-45"),
    ])
    func aNumberTooCloseToZeroForItsFieldIsReportedAsSuch(
        data: String, path: String, literal: String, type: String, smallest: String
    ) {
        let json = #"{"event":"measurements","data":"# + data + "}"
        do {
            _ = try WireProbePayload(wireJSON: Data(json.utf8))
            Issue.record("accepted \(json)")
        } catch {
            #expect(error.code == .numberOutOfRange, "\(error)")
            #expect(error.path == path, "\(error)")
            #expect(
                error.reason
                    == "the number \(literal) is too close to zero for \(type), whose smallest magnitude is "
                    + "\(smallest): it would read as 0",
                "\(error)")
        }
    }

    @Test func aNumberTooLargeForItsFieldStillSaysItsRange() {
        let json = #"{"event":"measurements","data":{"double":0,"float":1e39,"decimal":0}}"#
        do {
            _ = try WireProbePayload(wireJSON: Data(json.utf8))
            Issue.record("accepted \(json)")
        } catch {
            #expect(error.code == .numberOutOfRange, "\(error)")
            #expect(error.reason == "the number 1e39 does not fit in Float (up to ±3.4028235e+38)", "\(error)")
        }
    }

    @Test func aWireObjectWithDuplicateKeysIsRejectedNotReadFirstKeyWins() {
        #expect(throws: JSONDecodingError.self) {
            try EventPayloadValue(wireJSON: Data(#"{"event":"ready","event":"bucketing","data":{}}"#.utf8))
        }
    }

    @Test func payloadTypeOfEveryEventIsItsPayloadStruct() {
        for payload in SamplePayloads.all {
            let payloadType = type(of: payload.payload)
            #expect(ObjectIdentifier(payload.event.payloadType) == ObjectIdentifier(payloadType))
            #expect(payloadType.event == payload.event)
        }
    }
}
