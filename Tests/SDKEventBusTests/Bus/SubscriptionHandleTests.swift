import SDKEventBus
import Testing

/// A subscription handle ends its subscription when released, a set of handles ends them all at
/// once, and the token API keeps working beside them.
@Suite struct SubscriptionHandleTests {
    static let conversion = EventPayloadValue.conversion(ConversionPayload(goalId: "g", visitorId: "v"))

    @Test func releasingTheHandleEndsTheSubscriptionAndReleasesTheCallback() async {
        let (bus, emitter) = EventBus.makeBus()
        let calls = Counter()
        var captured: Canary? = Canary()
        weak let watched = captured
        var handle: EventSubscription? = bus.on(.conversion, delivery: .immediate) { [captured] _ in
            _ = captured
            calls.increment()
        }.subscription
        captured = nil
        emitter.fire(Self.conversion)
        #expect(calls.count == 1)

        handle = nil
        #expect(watched == nil, "the callback and what it captured are released with the handle")
        emitter.fire(Self.conversion)
        #expect(calls.count == 1)
        #expect(bus.listenerCount(for: .conversion) == 0)
        _ = handle
    }

    @Test func aSetOfHandlesEndsEverySubscriptionInItAtOnce() async {
        let (bus, emitter) = EventBus.makeBus()
        let calls = Counter()
        var subscriptions: Set<EventSubscription> = []
        bus.on(.conversion, delivery: .immediate) { _ in calls.increment() }.store(in: &subscriptions)
        bus.on(.bucketing, delivery: .immediate) { _ in calls.increment() }.store(in: &subscriptions)
        bus.on(.conversion) { _ in calls.increment() }.store(in: &subscriptions)
        #expect(subscriptions.count == 3)

        subscriptions.removeAll()
        emitter.fire(Self.conversion)
        await bus.flush()
        #expect(calls.count == 0)
        #expect(bus.listenerCount(for: .conversion) == 0)
        #expect(bus.listenerCount(for: .bucketing) == 0)
    }

    @Test func cancellingAHandleOrItsTokenIsTheSameAndIdempotent() async {
        let (bus, emitter) = EventBus.makeBus()
        let calls = Counter()
        let token = bus.on(.conversion, delivery: .immediate) { _ in calls.increment() }
        let handle = token.subscription
        handle.cancel()
        token.cancel()
        handle.cancel()
        emitter.fire(Self.conversion)
        #expect(calls.count == 0)
        #expect(bus.listenerCount(for: .conversion) == 0)
    }

    @Test func aHandleOutlivingItsBusIsHarmless() async {
        var handle: EventSubscription?
        do {
            let (bus, _) = EventBus.makeBus()
            handle = bus.on(.conversion) { _ in }.subscription
        }
        handle?.cancel()
        handle = nil
    }
}
