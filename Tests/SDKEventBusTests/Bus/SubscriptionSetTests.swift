import SDKEventBus
import SDKEventBusTesting
import Testing

/// The idioms of Combine's `Set<AnyCancellable>` on `SubscriptionSet`, each as it behaves in Combine.
///
/// The idioms that would leak silently (`insert` into the owning set, `store(in:)` into a
/// `Set<EventSubscription>`) do not compile; Scripts/check-handle-idioms.sh pins that.
@Suite struct SubscriptionSetTests {
    static let conversion = EventPayloadValue.conversion(ConversionPayload(goalId: "g", visitorId: "v"))

    // MARK: store(in:)

    @Test func storeInASubscriptionSetOwnsTheSubscriptionWhileTheSetLives() async {
        let (bus, emitter) = EventBus.makeBus()
        let calls = Counter()
        var subscriptions = SubscriptionSet()
        bus.on(.conversion, delivery: .immediate) { _ in calls.increment() }.store(in: &subscriptions)
        #expect(subscriptions.count == 1)
        #expect(!subscriptions.isEmpty)

        emitter.fire(Self.conversion)
        emitter.fire(Self.conversion)
        #expect(calls.count == 2)
        #expect(bus.listenerCount(for: .conversion) == 1)
        withExtendedLifetime(subscriptions) {}
    }

    @Test func droppingTheSetEndsItsSubscriptionsAndReleasesTheirCallbacks() async {
        let (bus, emitter) = EventBus.makeBus()
        let calls = Counter()
        var captured: Canary? = Canary()
        weak let watched = captured
        var subscriptions: SubscriptionSet? = SubscriptionSet()
        bus.on(.conversion, delivery: .immediate) { [captured] _ in
            _ = captured
            calls.increment()
        }.store(in: &subscriptions!)
        bus.on(.bucketing) { _ in calls.increment() }.store(in: &subscriptions!)
        captured = nil
        emitter.fire(Self.conversion)
        #expect(calls.count == 1)

        subscriptions = nil
        #expect(watched == nil, "the callback and what it captured are released with the set")
        emitter.fire(Self.conversion)
        #expect(calls.count == 1)
        #expect(bus.listenerCount(for: .conversion) == 0)
        #expect(bus.listenerCount(for: .bucketing) == 0)
    }

    @Test func aCopyOfTheSetKeepsItsSubscriptionsUntilEveryCopyIsDropped() async {
        let (bus, emitter) = EventBus.makeBus()
        let calls = Counter()
        var subscriptions: SubscriptionSet? = SubscriptionSet()
        bus.on(.conversion, delivery: .immediate) { _ in calls.increment() }.store(in: &subscriptions!)
        var copy: SubscriptionSet? = subscriptions
        bus.on(.bucketing, delivery: .immediate) { _ in }.store(in: &copy!)  // the copy diverges
        #expect(subscriptions?.count == 1)
        #expect(copy?.count == 2)

        subscriptions = nil
        emitter.fire(Self.conversion)
        #expect(calls.count == 1, "the copy still owns it")

        copy = nil
        emitter.fire(Self.conversion)
        #expect(calls.count == 1)
        #expect(bus.listenerCount(for: .conversion) == 0)
        #expect(bus.listenerCount(for: .bucketing) == 0)
    }

    // MARK: removeAll()

    @Test func removeAllEndsEverySubscriptionTheSetOwns() async {
        let (bus, emitter) = EventBus.makeBus()
        let calls = Counter()
        var subscriptions = SubscriptionSet()
        bus.on(.conversion, delivery: .immediate) { _ in calls.increment() }.store(in: &subscriptions)
        bus.on(.bucketing, delivery: .immediate) { _ in calls.increment() }.store(in: &subscriptions)
        bus.on(.conversion) { _ in calls.increment() }.store(in: &subscriptions)
        #expect(subscriptions.count == 3)

        subscriptions.removeAll()
        #expect(subscriptions.isEmpty)
        emitter.fire(Self.conversion)
        await bus.flush()
        #expect(calls.count == 0)
        #expect(bus.listenerCount(for: .conversion) == 0)
        #expect(bus.listenerCount(for: .bucketing) == 0)
    }

    // MARK: Storing twice

    @Test func storingASubscriptionTwiceInTheSameSetHoldsItOnce() async {
        let (bus, emitter) = EventBus.makeBus()
        let calls = Counter()
        var subscriptions = SubscriptionSet()
        let subscription = bus.on(.conversion, delivery: .immediate) { _ in calls.increment() }
        subscription.store(in: &subscriptions)
        subscription.store(in: &subscriptions)
        #expect(subscriptions.count == 1, "one subscription")
        emitter.fire(Self.conversion)
        #expect(calls.count == 1, "storing it again did not end it")

        subscriptions.removeAll()
        #expect(bus.listenerCount(for: .conversion) == 0, "the set was its owner")
    }

    @Test func aSubscriptionStoredInTwoSetsEndsWhenBothAreDropped() async {
        let (bus, emitter) = EventBus.makeBus()
        let calls = Counter()
        var first = SubscriptionSet()
        var second = SubscriptionSet()
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

    // MARK: What owns nothing

    @Test func aTokenKeptInAPlainSetOfEventSubscriptionOwnsNothing() async {
        // Documented: a `Set<EventSubscription>` is a set of tokens. Inserting the value `on`
        // returns, and dropping the set, leaves the subscription running until it is ended.
        let (bus, emitter) = EventBus.makeBus()
        let calls = Counter()
        var tokens: Set<EventSubscription>? = []
        tokens!.insert(bus.on(.conversion, delivery: .immediate) { _ in calls.increment() })
        let token = tokens!.first!
        tokens = nil
        emitter.fire(Self.conversion)
        #expect(calls.count == 1, "the subscription outlives the set of tokens")
        #expect(bus.listenerCount(for: .conversion) == 1)

        await bus.off(token)
        #expect(bus.listenerCount(for: .conversion) == 0)
    }

    @Test func storingAnEndedSubscriptionHoldsNothingAndEndsNothingLater() async {
        let (bus, emitter) = EventBus.makeBus()
        let calls = Counter()
        var subscriptions = SubscriptionSet()
        let subscription = bus.on(.conversion, delivery: .immediate) { _ in calls.increment() }
        subscription.cancel()
        subscription.store(in: &subscriptions)
        #expect(subscriptions.isEmpty)
        let later = bus.on(.conversion, delivery: .immediate) { _ in calls.increment() }
        subscriptions.removeAll()
        emitter.fire(Self.conversion)
        #expect(calls.count == 1)
        #expect(bus.listenerCount(for: .conversion) == 1)
        await bus.off(later)
    }

    @Test func endingAStoredSubscriptionOtherwiseLeavesTheSetHarmless() async {
        let (bus, emitter) = EventBus.makeBus()
        let calls = Counter()
        var subscriptions = SubscriptionSet()
        let subscription = bus.on(.conversion, delivery: .immediate) { _ in calls.increment() }
        subscription.store(in: &subscriptions)
        await bus.off(subscription)
        let later = bus.on(.conversion, delivery: .immediate) { _ in calls.increment() }
        subscriptions.removeAll()  // releases the ended subscription's handle: ends nothing else
        emitter.fire(Self.conversion)
        #expect(calls.count == 1)
        #expect(bus.listenerCount(for: .conversion) == 1)
        await bus.off(later)
    }

    @Test func aLongLivedSetThatStoresAOncePerScreenHoldsAtMostAboutTwiceItsLiveSubscriptions() async {
        let (bus, emitter) = EventBus.makeBus()
        let calls = Counter()
        var subscriptions = SubscriptionSet()
        bus.on(.bucketing, delivery: .immediate) { _ in calls.increment() }.store(in: &subscriptions)
        for _ in 0..<1_000 {
            // A screen: its `once` is stored, then fires and ends.
            bus.once(.conversion, delivery: .immediate) { _ in calls.increment() }.store(in: &subscriptions)
            emitter.fire(Self.conversion)
            #expect(subscriptions.count <= 64, "at most twice the live ones, or twice the first sweep's 32")
        }
        #expect(calls.count == 1_000)
        emitter.fire(SamplePayloads.sample(.bucketing))
        #expect(calls.count == 1_001, "the live subscription is still owned")
        subscriptions.removeAll()
        #expect(bus.listenerCount(for: .bucketing) == 0)
    }

    @Test func droppingEndedSubscriptionsKeepsEveryLiveOneOwned() async {
        let (bus, emitter) = EventBus.makeBus()
        let calls = Counter()
        var subscriptions = SubscriptionSet()
        var ended: [EventSubscription] = []
        for index in 0..<200 {
            let subscription = bus.on(.conversion, delivery: .immediate) { _ in calls.increment() }
            subscription.store(in: &subscriptions)
            if index % 2 == 0 { ended.append(subscription) }
            if index % 10 == 9 { for subscription in ended { subscription.cancel() } }
        }
        #expect(subscriptions.count < 200, "ended ones were dropped")
        #expect(bus.listenerCount(for: .conversion) == 100)
        emitter.fire(Self.conversion)
        #expect(calls.count == 100)
        subscriptions.removeAll()
        #expect(bus.listenerCount(for: .conversion) == 0, "every live one was still owned by the set")
    }

    @Test func aSetOutlivingItsBusIsHarmless() async {
        var subscriptions = SubscriptionSet()
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
        subscriptions.removeAll()
    }

    // MARK: Every bus

    @Test func aClientsSubscriptionsAreOwnedTheSameWay() async {
        var configuration = SDKConfiguration()
        configuration.fetchesOnStart = false
        let (client, emitter) = SDKClient.makeClient(configuration: configuration, fetch: { throw CancellationError() })
        let calls = Counter()
        var subscriptions = SubscriptionSet()
        client.on(.conversion, delivery: .immediate) { _ in calls.increment() }.store(in: &subscriptions)
        client.once(.conversion, delivery: .immediate) { _ in calls.increment() }.store(in: &subscriptions)
        emitter.fire(Self.conversion)
        #expect(calls.count == 2)

        subscriptions.removeAll()
        emitter.fire(Self.conversion)
        #expect(calls.count == 2)
        #expect(client.listenerCount(for: .conversion) == 0)
        _ = await client.shutdown()
    }

    @Test func aFacadesSubscriptionsAreOwnedTheSameWay() async {
        let (bus, emitter) = EventBus.makeBus()
        let facade = ExperimentsFacade(bus: bus)
        let calls = Counter()
        var subscriptions = SubscriptionSet()
        facade.on(ConversionPayload.self, delivery: .immediate) { _ in calls.increment() }.store(in: &subscriptions)
        emitter.fire(Self.conversion)
        #expect(calls.count == 1)

        subscriptions.removeAll()
        emitter.fire(Self.conversion)
        #expect(calls.count == 1)
        #expect(facade.listenerCount(for: .conversion) == 0)
    }

    @Test func anAppBusesSubscriptionsAreOwnedTheSameWay() async {
        struct Ping: AppEvent {}
        let appBus = AppEventBus()
        let calls = Counter()
        var first = SubscriptionSet()
        var second = SubscriptionSet()
        let subscription = appBus.on(Ping.self, delivery: .immediate) { _ in calls.increment() }
        subscription.store(in: &first)
        subscription.store(in: &first)
        subscription.store(in: &second)
        appBus.on(Ping.self, owner: Canary(), delivery: .immediate) { _, _ in }.store(in: &first)
        #expect(first.count == 2)
        first.removeAll()
        appBus.publish(Ping())
        #expect(calls.count == 1, "the second set still owns it")
        second.removeAll()
        appBus.publish(Ping())
        #expect(calls.count == 1)
        #expect(appBus.listenerCount(for: Ping.self) == 0)
    }
}

/// An SDK's facade over the built-in bus, subscribing through `CatalogSubscribing`.
private final class ExperimentsFacade: CatalogSubscribing {
    let bus: EventBus

    init(bus: EventBus) {
        self.bus = bus
    }
}
