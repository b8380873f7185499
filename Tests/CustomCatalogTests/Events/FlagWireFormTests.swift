import Foundation
import SDKEventBusConfig
import SDKEventBusWire
import Testing

/// The JSON wire form of every flag payload: canonical bytes, a round trip, typed errors.
@Suite struct FlagWireFormTests {
    /// Committed vectors: the bytes other platforms produce and parse for these payloads.
    static let vectors: [(payload: FlagEventPayload, json: String)] = [
        (
            .initialized(InitializedPayload(source: .live, flagCount: 9)),
            #"{"data":{"flagCount":9,"source":"live"},"event":"initialized"}"#
        ),
        (
            .initialized(InitializedPayload(source: .degraded, error: "flag server unreachable")),
            #"{"data":{"error":"flag server unreachable","flagCount":0,"source":"degraded"},"event":"initialized"}"#
        ),
        (
            .flagsChanged(FlagsChangedPayload(changedKeys: ["headerColor", "myBoolFlag"])),
            #"{"data":{"changedKeys":["headerColor","myBoolFlag"]},"event":"flags.changed"}"#
        ),
        (.flagsChanged(FlagsChangedPayload(changedKeys: [])), #"{"data":{"changedKeys":[]},"event":"flags.changed"}"#),
        (
            .error(FlagErrorPayload(message: "JSON rejected: \"flags\" is missing")),
            #"{"data":{"message":"JSON rejected: \"flags\" is missing"},"event":"error"}"#
        ),
        (.stale(StalePayload(reason: "offline")), #"{"data":{"reason":"offline"},"event":"stale"}"#),
        (.reconciling(ReconcilingPayload()), #"{"data":{},"event":"reconciling"}"#),
        (
            .contextChanged(ContextChangedPayload(targetingKey: "user-1")),
            #"{"data":{"targetingKey":"user-1"},"event":"context.changed"}"#
        ),
    ]

    @Test func everyPayloadEncodesToItsCommittedVector() throws {
        for (payload, json) in Self.vectors {
            #expect(String(decoding: try payload.wireJSON(), as: UTF8.self) == json)
        }
    }

    @Test func everyCommittedVectorDecodesToItsPayload() throws {
        for (payload, json) in Self.vectors {
            #expect(try FlagEventPayload(wireJSON: Data(json.utf8)) == payload)
        }
    }

    @Test func everyPayloadRoundTripsThroughItsWireFormAndCodable() throws {
        for payload in FlagEventPayload.samples + Self.vectors.map(\.payload) {
            #expect(try FlagEventPayload(wireJSON: payload.wireJSON()) == payload)
            #expect(try JSONDecoder().decode(FlagEventPayload.self, from: JSONEncoder().encode(payload)) == payload)
        }
    }

    @Test func keyOrderAndWhitespaceDoNotMatterWhenDecoding() throws {
        let json = #"{ "event" : "flags.changed", "data" : { "changedKeys" : [ "myBoolFlag" ] } }"#
        #expect(
            try FlagEventPayload(wireJSON: Data(json.utf8))
                == .flagsChanged(FlagsChangedPayload(changedKeys: ["myBoolFlag"])))
    }

    @Test(arguments: [
        (#"{"event":"flag.changed","data":{}}"#, JSONDecodingError.Code.unknownEvent, "event"),
        (#"{"data":{"changedKeys":[]}}"#, .missingField, "event"),
        (#"{"event":"error"}"#, .missingField, "data"),
        (#"{"event":"flags.changed","data":{"changedKeys":"myBoolFlag"}}"#, .wrongType, "data.changedKeys"),
        (#"{"event":"initialized","data":{"source":"network"}}"#, .invalidValue, "data.source"),
        (#"{"event":"error","data":{}}"#, .missingField, "data.message"),
        (#"["initialized"]"#, .invalidSyntax, ""),
        (#"{"event":"error","data":"#, .invalidSyntax, "data"),
    ])
    func malformedWireFormIsRejectedWithATypedError(_ json: String, _ code: JSONDecodingError.Code, _ path: String) {
        let error = #expect(throws: JSONDecodingError.self) { try FlagEventPayload(wireJSON: Data(json.utf8)) }
        #expect(error?.code == code, "\(error.map { "\($0)" } ?? "no error")")
        #expect(error?.path == path, "\(error.map { "\($0)" } ?? "no error")")
    }
}
