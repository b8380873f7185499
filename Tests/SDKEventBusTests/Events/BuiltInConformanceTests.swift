import SDKEventBus
import SDKEventBusTesting
import Testing

/// `CatalogConformance` from the testing library on the built-in catalog: its committed wire
/// names, replay rules and typed payloads.
@Suite struct BuiltInConformanceTests {
    @Test func builtInCatalogKeepsItsWireContract() throws {
        try CatalogConformance<SystemEvent>(
            rawValues: [
                "ready", "config.updated", "api.queue.released", "bucketing", "conversion", "segments",
                "location.activated", "location.deactivated", "audiences", "datastore.queue.released",
            ],
            replayRules: [.ready: .sticky, .configUpdated: .latestOnRequest],
            samples: [
                .ready(ReadyPayload(source: .live, configAgeSeconds: 0)),
                .configUpdated(ConfigUpdatedPayload(snapshot: nil)),
                .apiQueueReleased(ApiQueueReleasedPayload(eventCount: 3)),
                .bucketing(BucketingPayload(experienceId: "e1", variationId: "v1", visitorId: "u1")),
                .conversion(ConversionPayload(goalId: "g1", visitorId: "u1")),
                .segments(SegmentsPayload(visitorId: "u1", segments: Segments(country: "DE"))),
                .locationActivated(LocationActivatedPayload(properties: ["location": "checkout"])),
                .locationDeactivated(LocationDeactivatedPayload()),
                .audiences(AudiencesPayload(audienceIds: ["a1"], visitorId: "u1")),
                .dataStoreQueueReleased(DataStoreQueueReleasedPayload()),
            ],
            typedSamples: [
                ReadyPayload(), ConfigUpdatedPayload(snapshot: nil), ApiQueueReleasedPayload(eventCount: 3),
                BucketingPayload(experienceId: "e1", variationId: "v1", visitorId: "u1"),
                ConversionPayload(goalId: "g1", visitorId: "u1"),
                SegmentsPayload(visitorId: "u1", segments: Segments(country: "DE")),
                LocationActivatedPayload(properties: ["location": "checkout"]), LocationDeactivatedPayload(),
                AudiencesPayload(audienceIds: ["a1"], visitorId: "u1"), DataStoreQueueReleasedPayload(),
            ]
        ).verify()
    }
}
