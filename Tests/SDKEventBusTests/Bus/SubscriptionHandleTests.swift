import SDKEventBus
import Testing

/// One handle type on every bus, `EventSubscription`, a value that names its subscription.
///
/// It owns nothing and ends the subscription only when asked; owning is `SubscriptionSet`'s (see
/// `SubscriptionSetTests`).
@Suite struct SubscriptionHandleTests {
    static let conversion = EventPayloadValue.conversion(ConversionPayload(goalId: "g", visitorId: "v"))

    @Test func droppingTheValueOnReturnLeavesTheSubscriptionLive() async {
        let (bus, emitter) = EventBus.makeBus()
        let calls = Counter()
        bus.on(.conversion, delivery: .immediate) { _ in calls.increment() }
        emitter.fire(Self.conversion)
        #expect(calls.count == 1)
        #expect(bus.listenerCount(for: .conversion) == 1)
    }

    @Test func cancellingAStoredSubscriptionOrItsValueIsTheSameAndIdempotent() async {
        let (bus, emitter) = EventBus.makeBus()
        let calls = Counter()
        var subscriptions = SubscriptionSet()
        let subscription = bus.on(.conversion, delivery: .immediate) { _ in calls.increment() }
        subscription.store(in: &subscriptions)
        subscription.cancel()
        subscription.cancel()
        await bus.off(subscription)
        emitter.fire(Self.conversion)
        #expect(calls.count == 0)
        #expect(bus.listenerCount(for: .conversion) == 0)
        #expect(subscriptions.count == 1, "an ended subscription stays in its set until the set lets it go")
    }

    @Test func valuesOfOneSubscriptionAreEqualAndOfTwoDistinct() async {
        let (bus, _) = EventBus.makeBus()
        let subscription = bus.on(.conversion) { _ in }
        let copy = subscription
        let other = bus.on(.conversion) { _ in }
        #expect(copy == subscription)
        #expect(subscription != other)
        #expect(Set([subscription, copy, other]).count == 2)
    }
}
