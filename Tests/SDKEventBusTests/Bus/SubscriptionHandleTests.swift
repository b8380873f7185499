import SDKEventBus
import Testing

/// One handle type on every bus, `EventSubscription`.
///
/// A value that ends its subscription only when asked, and a set that stores it with `store(in:)`
/// owns it, in the manner of Combine's `AnyCancellable`. Each subscription has one owner object, so storing it again, or in two sets,
/// never ends a live subscription.
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

    @Test func aSetThatStoresASubscriptionEndsItAndReleasesTheCallbackWhenReleased() async {
        let (bus, emitter) = EventBus.makeBus()
        let calls = Counter()
        var captured: Canary? = Canary()
        weak let watched = captured
        var subscriptions: Set<EventSubscription>? = []
        bus.on(.conversion, delivery: .immediate) { [captured] _ in
            _ = captured
            calls.increment()
        }.store(in: &subscriptions!)
        captured = nil
        emitter.fire(Self.conversion)
        #expect(calls.count == 1)

        subscriptions = nil
        #expect(watched == nil, "the callback and what it captured are released with the set")
        emitter.fire(Self.conversion)
        #expect(calls.count == 1)
        #expect(bus.listenerCount(for: .conversion) == 0)
    }

    @Test func aSetEndsEverySubscriptionItStoresAtOnce() async {
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

    @Test func removingAStoredSubscriptionFromItsSetEndsIt() async {
        let (bus, emitter) = EventBus.makeBus()
        let calls = Counter()
        var subscriptions: Set<EventSubscription> = []
        let subscription = bus.on(.conversion, delivery: .immediate) { _ in calls.increment() }
        subscription.store(in: &subscriptions)
        subscriptions.remove(subscription)
        emitter.fire(Self.conversion)
        #expect(calls.count == 0)
        #expect(bus.listenerCount(for: .conversion) == 0)
    }

    @Test func cancellingAStoredCopyOrTheReturnedValueIsTheSameAndIdempotent() async {
        let (bus, emitter) = EventBus.makeBus()
        let calls = Counter()
        var subscriptions: Set<EventSubscription> = []
        let subscription = bus.on(.conversion, delivery: .immediate) { _ in calls.increment() }
        subscription.store(in: &subscriptions)
        subscriptions.first?.cancel()
        subscription.cancel()
        subscriptions.first?.cancel()
        emitter.fire(Self.conversion)
        #expect(calls.count == 0)
        #expect(bus.listenerCount(for: .conversion) == 0)
    }

    @Test func aSubscriptionOutlivingItsBusIsHarmless() async {
        var subscriptions: Set<EventSubscription> = []
        let watchedBus: WeakReference<EventBus>
        let watchedCapture: WeakReference<Canary>
        do {
            let (bus, _) = EventBus.makeBus()
            watchedBus = WeakReference(bus)
            let canary = Canary()
            watchedCapture = WeakReference(canary)
            bus.on(.conversion) { [canary] _ in _ = canary }.store(in: &subscriptions)
        }
        #expect(watchedBus.object == nil, "a stored subscription does not keep its bus alive")
        #expect(watchedCapture.object == nil, "the bus ended the subscription and released its callback when it went")
        subscriptions.first?.cancel()
        subscriptions.removeAll()
    }

    // MARK: One owner per subscription

    @Test func storingTheSameSubscriptionTwiceInASetKeepsItLive() async {
        let (bus, emitter) = EventBus.makeBus()
        let calls = Counter()
        var subscriptions: Set<EventSubscription> = []
        let subscription = bus.on(.conversion, delivery: .immediate) { _ in calls.increment() }
        subscription.store(in: &subscriptions)
        subscription.store(in: &subscriptions)
        subscriptions.first?.store(in: &subscriptions)
        #expect(subscriptions.count == 1, "one subscription")
        emitter.fire(Self.conversion)
        #expect(calls.count == 1, "storing it again did not end it")
        #expect(bus.listenerCount(for: .conversion) == 1)

        subscriptions.removeAll()
        #expect(bus.listenerCount(for: .conversion) == 0, "the set was its owner")
    }

    @Test func oneSubscriptionInTwoSetsLivesUntilBothAreReleased() async {
        let (bus, emitter) = EventBus.makeBus()
        let calls = Counter()
        var first: Set<EventSubscription> = []
        var second: Set<EventSubscription> = []
        let subscription = bus.on(.conversion, delivery: .immediate) { _ in calls.increment() }
        subscription.store(in: &first)
        subscription.store(in: &second)

        first.removeAll()
        emitter.fire(Self.conversion)
        #expect(calls.count == 1, "the second set still owns it")
        #expect(bus.listenerCount(for: .conversion) == 1)

        second.removeAll()
        emitter.fire(Self.conversion)
        #expect(calls.count == 1)
        #expect(bus.listenerCount(for: .conversion) == 0)
    }

    @Test func storeMakesASetOwnASubscriptionItAlreadyHeldWithoutOwning() async {
        let (bus, emitter) = EventBus.makeBus()
        let calls = Counter()
        var subscriptions: Set<EventSubscription> = []
        let subscription = bus.on(.conversion, delivery: .immediate) { _ in calls.increment() }
        subscriptions.insert(subscription)
        subscription.store(in: &subscriptions)
        #expect(subscriptions.count == 1)
        subscriptions.removeAll()
        emitter.fire(Self.conversion)
        #expect(calls.count == 0, "the stored copy replaced the plain one, so the set owned it")
    }

    @Test func valuesOfOneSubscriptionAreEqualAndOfTwoDistinct() async {
        let (bus, _) = EventBus.makeBus()
        var subscriptions: Set<EventSubscription> = []
        let subscription = bus.on(.conversion) { _ in }
        let other = bus.on(.conversion) { _ in }
        subscription.store(in: &subscriptions)
        #expect(subscriptions.first == subscription, "an owning copy equals the value the bus returned")
        #expect(subscription != other)
        #expect(Set([subscription, subscriptions.first!]).count == 1)
    }

    @Test func storingAnEndedSubscriptionEndsNothingLaterWhenReleased() async {
        let (bus, emitter) = EventBus.makeBus()
        let calls = Counter()
        var subscriptions: Set<EventSubscription> = []
        let subscription = bus.on(.conversion, delivery: .immediate) { _ in calls.increment() }
        subscription.cancel()
        subscription.store(in: &subscriptions)
        let later = bus.on(.conversion, delivery: .immediate) { _ in calls.increment() }
        subscriptions.removeAll()
        emitter.fire(Self.conversion)
        #expect(calls.count == 1)
        #expect(bus.listenerCount(for: .conversion) == 1)
        _ = later
    }

    @Test func aSubscriptionOnAnAppBusIsOwnedTheSameWay() async {
        struct Ping: AppEvent {}
        let appBus = AppEventBus()
        let calls = Counter()
        var first: Set<EventSubscription> = []
        var second: Set<EventSubscription> = []
        let subscription = appBus.on(Ping.self, delivery: .immediate) { _ in calls.increment() }
        subscription.store(in: &first)
        subscription.store(in: &first)
        subscription.store(in: &second)
        first.removeAll()
        appBus.publish(Ping())
        #expect(calls.count == 1)
        second.removeAll()
        appBus.publish(Ping())
        #expect(calls.count == 1)
        #expect(appBus.listenerCount(for: Ping.self) == 0)
    }
}
