import SDKEventBus

/// Collects what callbacks receive, on the main actor where callbacks run.
@MainActor
final class Recorder<Element> {
    private(set) var items: [Element] = []

    func append(_ item: Element) {
        items.append(item)
    }
}

/// An object whose lifetime a test watches through a weak reference.
final class Canary: Sendable {}

/// A weak reference that can cross tasks.
final class WeakReference<Object: AnyObject & Sendable>: Sendable {
    weak let object: Object?

    init(_ object: Object) {
        self.object = object
    }
}

/// One sample payload per event, for tests that must cover the whole catalog.
enum SamplePayloads {
    static let all: [EventPayloadValue] = [
        .ready(ReadyPayload()),
        .configUpdated(ConfigUpdatedPayload(snapshot: nil)),
        .apiQueueReleased(ApiQueueReleasedPayload(eventCount: 3)),
        .bucketing(BucketingPayload(experienceId: "e1", variationId: "v1", visitorId: "u1")),
        .conversion(ConversionPayload(goalId: "g1", visitorId: "u1")),
        .segments(SegmentsPayload(visitorId: "u1", segments: Segments(country: "DE"))),
        .locationActivated(LocationActivatedPayload(properties: ["location": "events"])),
        .locationDeactivated(LocationDeactivatedPayload()),
        .audiences(AudiencesPayload(audienceIds: ["a1"], visitorId: "u1")),
        .dataStoreQueueReleased(DataStoreQueueReleasedPayload()),
    ]

    /// The sample payload of `event`.
    static func sample(_ event: SystemEvent) -> EventPayloadValue {
        all.first { $0.event == event }!
    }

    /// A payload that carries a number, for tests that check order.
    static func numbered(_ number: Int) -> EventPayloadValue {
        .apiQueueReleased(ApiQueueReleasedPayload(eventCount: number))
    }
}

extension EventPayloadValue {
    /// The number a ``SamplePayloads/numbered(_:)`` payload carries.
    var number: Int? {
        guard case .apiQueueReleased(let payload) = self else { return nil }
        return payload.eventCount
    }
}
