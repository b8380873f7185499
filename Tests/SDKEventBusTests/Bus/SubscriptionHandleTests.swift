import SDKEventBus
import Testing

/// A subscription handle ends its subscription when released.
///
/// A set of handles ends them all at once, and the token API keeps working beside them. Each subscription has one handle, so storing
/// or reading it again never ends a live subscription (Combine's `AnyCancellable` semantics).
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
        let watchedBus: WeakReference<EventBus>
        let watchedCapture: WeakReference<Canary>
        do {
            let (bus, _) = EventBus.makeBus()
            watchedBus = WeakReference(bus)
            let canary = Canary()
            watchedCapture = WeakReference(canary)
            handle = bus.on(.conversion) { [canary] _ in _ = canary }.subscription
        }
        #expect(watchedBus.object == nil, "a handle does not keep its bus alive")
        #expect(watchedCapture.object == nil, "the bus ended the subscription and released its callback when it went")
        handle?.cancel()
        handle = nil
    }

    // MARK: One owner per subscription

    @Test func storingTheSameSubscriptionTwiceInASetKeepsItLive() async {
        let (bus, emitter) = EventBus.makeBus()
        let calls = Counter()
        var subscriptions: Set<EventSubscription> = []
        let token = bus.on(.conversion, delivery: .immediate) { _ in calls.increment() }
        token.store(in: &subscriptions)
        token.store(in: &subscriptions)
        token.subscription.store(in: &subscriptions)
        #expect(subscriptions.count == 1, "one subscription, one handle")
        emitter.fire(Self.conversion)
        #expect(calls.count == 1, "storing it again did not end it")
        #expect(bus.listenerCount(for: .conversion) == 1)

        subscriptions.removeAll()
        #expect(bus.listenerCount(for: .conversion) == 0, "the set was its owner")
    }

    @Test func readingTheSubscriptionHandleTwiceKeepsItLive() async {
        let (bus, emitter) = EventBus.makeBus()
        let calls = Counter()
        let token = bus.on(.conversion, delivery: .immediate) { _ in calls.increment() }
        let handle = token.subscription
        let again = token.subscription
        #expect(handle === again, "every read returns the one handle")
        _ = token.subscription
        emitter.fire(Self.conversion)
        #expect(calls.count == 1, "reading the handle again did not end the subscription")
        #expect(bus.listenerCount(for: .conversion) == 1)
        _ = (handle, again)
    }

    @Test func oneSubscriptionInTwoSetsLivesUntilBothAreReleased() async {
        let (bus, emitter) = EventBus.makeBus()
        let calls = Counter()
        var first: Set<EventSubscription> = []
        var second: Set<EventSubscription> = []
        let token = bus.on(.conversion, delivery: .immediate) { _ in calls.increment() }
        token.store(in: &first)
        token.store(in: &second)

        first.removeAll()
        emitter.fire(Self.conversion)
        #expect(calls.count == 1, "the second set still owns it")
        #expect(bus.listenerCount(for: .conversion) == 1)

        second.removeAll()
        emitter.fire(Self.conversion)
        #expect(calls.count == 1)
        #expect(bus.listenerCount(for: .conversion) == 0)
    }

    @Test func handlesOfDifferentSubscriptionsAreDistinctAndOfOneSubscriptionEqual() async {
        let (bus, _) = EventBus.makeBus()
        let token = bus.on(.conversion) { _ in }
        let other = bus.on(.conversion) { _ in }
        let handle = token.subscription
        #expect(handle == token.subscription)
        #expect(handle != other.subscription)
        #expect(Set([handle, token.subscription]).count == 1)
        #expect(handle.token == token)
    }

    @Test func aHandleOfAnEndedSubscriptionEndsNothingWhenReleased() async {
        let (bus, emitter) = EventBus.makeBus()
        let calls = Counter()
        let token = bus.on(.conversion, delivery: .immediate) { _ in calls.increment() }
        token.cancel()
        _ = token.subscription
        let later = bus.on(.conversion, delivery: .immediate) { _ in calls.increment() }
        emitter.fire(Self.conversion)
        #expect(calls.count == 1)
        #expect(bus.listenerCount(for: .conversion) == 1)
        _ = later
    }

    @Test func aHandleOnAnAppBusOwnsItsSubscriptionTheSameWay() async {
        struct Ping: AppEvent {}
        let appBus = AppEventBus()
        let calls = Counter()
        var first: Set<EventSubscription> = []
        var second: Set<EventSubscription> = []
        let token = appBus.subscribe(to: Ping.self, delivery: .immediate) { _ in calls.increment() }
        token.store(in: &first)
        token.store(in: &first)
        token.store(in: &second)
        first.removeAll()
        appBus.publish(Ping())
        #expect(calls.count == 1)
        second.removeAll()
        appBus.publish(Ping())
        #expect(calls.count == 1)
        #expect(appBus.subscriberCount(for: Ping.self) == 0)
    }
}
