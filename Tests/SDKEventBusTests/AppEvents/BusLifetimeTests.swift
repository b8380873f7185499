import Testing

@testable import SDKEventBus
@testable import SDKEventBusAppEvents
@testable import SDKEventBusConfig
@testable import SDKEventBusCore
@testable import SDKEventBusWire

/// What releasing a bus or an actor frees: found by driving the app bus from outside.
@Suite struct BusLifetimeTests {
    struct Ping: AppEvent {
        let number: Int
    }

    actor Listener {}

    /// The actor lanes a bus holds, in use or vacant.
    static func laneCount(_ storage: BusStorage) -> Int {
        storage.state.withLock { $0.lanes.count }
    }

    @Test func lanesOfActorsThatAreGoneAreReusedSoPublishingCostDoesNotGrowWithHistory() async {
        let bus = AppEventBus()
        for _ in 0..<1_000 {
            let listener = Listener()
            bus.on(Ping.self, delivery: .isolated(to: listener)) { _, _ in }
        }
        bus.publish(Ping(number: 0))
        await bus.flush()
        #expect(bus.listenerCount(for: Ping.self) == 0)
        #expect(Self.laneCount(bus.storage) <= 8, "the lanes of gone actors are freed and reused")

        for _ in 0..<1_000 {
            let listener = Listener()
            bus.on(Ping.self, delivery: .isolated(to: listener)) { _, _ in }
            bus.cancelAll(ownedBy: listener)
        }
        #expect(Self.laneCount(bus.storage) <= 8)
    }

    @Test func catalogBusFreesTheLanesOfActorsThatAreGone() async {
        let (bus, emitter) = EventBus.makeBus()
        for _ in 0..<1_000 {
            let listener = Listener()
            bus.on(.conversion, delivery: .isolated(to: listener)) { _, _ in }
        }
        emitter.fire(.conversion(ConversionPayload(goalId: "g", visitorId: "v")))
        await bus.flush()
        #expect(bus.listenerCount(for: .conversion) == 0)
        #expect(Self.laneCount(bus.storage) <= 8)
    }

    final class Owner: Sendable {}

    @Test func releasingABusWithOwnerBoundAndOneShotSubscriptionsFreesItsHandlers() async {
        var captured: Canary? = Canary()
        weak let watched = captured
        var bus: AppEventBus? = AppEventBus()
        weak let watchedBus = bus
        let owner = Owner()
        bus?.on(Ping.self, owner: owner) { [captured] _, _ in _ = captured }
        bus?.once(Ping.self) { [captured] _ in _ = captured }
        bus?.once(Ping.self, delivery: .immediate) { [captured] _ in _ = captured }
        captured = nil
        #expect(watched != nil, "the subscriptions hold what their handlers captured")
        bus = nil
        #expect(watchedBus == nil, "the bus is not kept alive by its own subscriptions")
        #expect(watched == nil, "releasing the bus released their handlers")
        withExtendedLifetime(owner) {}
    }

    @Test func releasingABusFinishesItsStreams() async {
        var bus: AppEventBus? = AppEventBus()
        let pings = bus!.stream(of: Ping.self)
        let feed = bus!.allEvents()
        bus?.publish(Ping(number: 1))
        bus = nil
        var received: [Int] = []
        for await ping in pings { received.append(ping.number) }
        for await published in feed { received.append((published.event as? Ping)?.number ?? -1) }
        #expect(received == [1, 1])
    }
}
