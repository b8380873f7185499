import Foundation
import Testing

@testable import SDKEventBus
@testable import SDKEventBusConfig
@testable import SDKEventBusCore
@testable import SDKEventBusWire

@Suite struct SystemEventTests {
    @Test func rawValuesAreTheCrossSDKWireContract() {
        let expected: [SystemEvent: String] = [
            .ready: "ready",
            .configUpdated: "config.updated",
            .apiQueueReleased: "api.queue.released",
            .bucketing: "bucketing",
            .conversion: "conversion",
            .segments: "segments",
            .locationActivated: "location.activated",
            .locationDeactivated: "location.deactivated",
            .audiences: "audiences",
            .dataStoreQueueReleased: "datastore.queue.released",
        ]
        for event in SystemEvent.allCases {
            #expect(
                event.rawValue == expected[event],
                """
                \(event) has raw value "\(event.rawValue)" but the wire contract says "\(expected[event] ?? "nothing")". \
                These strings are a cross-SDK wire contract shared with the JavaScript and Android SDKs and with \
                analytics pipelines: they must never change.
                """
            )
        }
    }

    @Test func catalogHasExactlyTenEvents() {
        #expect(
            SystemEvent.allCases.count == 10,
            "The event catalog is a frozen cross-SDK wire contract: adding or removing an event is a breaking change."
        )
    }

    @Test func positionsIndexTheCatalogInOrderReadFromTheValueItself() {
        let index = CatalogIndex<SystemEvent>()
        #expect(SystemEvent.allCases.map(index.position(of:)) == Array(0..<SystemEvent.allCases.count))
    }

    @Test func everyEventHasExactlyOnePayloadCase() {
        let events = SamplePayloads.all.map(\.event)
        #expect(events == SystemEvent.allCases, "one payload case per event, in catalog order")
        #expect(Set(events).count == SystemEvent.allCases.count)
    }

    @Test func rawValuesDecodeToTheirEvents() throws {
        for event in SystemEvent.allCases {
            let json = Data("\"\(event.rawValue)\"".utf8)
            #expect(try JSONDecoder().decode(SystemEvent.self, from: json) == event)
        }
    }

    @Test func unknownRawValueIsRejected() {
        #expect(throws: DecodingError.self) {
            try JSONDecoder().decode(SystemEvent.self, from: Data("\"config_updated\"".utf8))
        }
    }

    @Test func payloadStructsRoundTripThroughCodable() throws {
        let bucketing = BucketingPayload(experienceId: "e", variationId: "v", visitorId: "ü")
        #expect(try roundTrip(bucketing) == bucketing)
        let segments = SegmentsPayload(visitorId: "u", segments: Segments(devices: ["desktop"], customSegments: []))
        #expect(try roundTrip(segments) == segments)
        let location = LocationActivatedPayload(properties: ["a": "1", "b": ""])
        #expect(try roundTrip(location) == location)
        let audiences = AudiencesPayload(audienceIds: [], visitorId: "")
        #expect(try roundTrip(audiences) == audiences)
        #expect(try roundTrip(ApiQueueReleasedPayload(eventCount: .max)) == ApiQueueReleasedPayload(eventCount: .max))
    }

    private func roundTrip<Value: Codable>(_ value: Value) throws -> Value {
        try JSONDecoder().decode(Value.self, from: JSONEncoder().encode(value))
    }
}
