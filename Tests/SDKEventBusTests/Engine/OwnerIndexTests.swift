import Testing

@testable import SDKEventBus
@testable import SDKEventBusCore

/// Subscriptions are listed under their owner, and the lists stay exact.
///
/// `cancelAll(ownedBy:)` visits only the owner's subscriptions, so tearing down N owners is linear
/// in N (the "teardown" benchmark shows it). The lists stay exact whichever way a subscription
/// ends: `off`, `once`, `cancelAll(ownedBy:)`, its owner deallocated, the bus shut down.
@Suite struct OwnerIndexTests {
    final class Owner: Sendable {}
    actor Listener {}

    static func count(ownedBy owner: AnyObject, on bus: EventBus) -> Int {
        bus.storage.state.withLock { $0.registry.subscriptionCount(ownedBy: ObjectIdentifier(owner)) }
    }

    static func ownerCount(_ bus: EventBus) -> Int {
        bus.storage.state.withLock { $0.registry.ownerCount }
    }

    static let conversion = EventPayloadValue.conversion(ConversionPayload(goalId: "g", visitorId: "v"))

    @Test func cancelAllOwnedByEndsExactlyThatOwnersSubscriptions() async {
        let (bus, emitter) = EventBus.makeBus()
        let owners = (0..<3).map { _ in Owner() }
        let listeners = (0..<3).map { _ in Listener() }
        let calls = (0..<3).map { _ in Counter() }
        for index in 0..<3 {
            let counter = calls[index]
            bus.on(.conversion, owner: owners[index]) { _, _ in counter.increment() }
            bus.on(.conversion, owner: owners[index], delivery: .immediate) { _, _ in counter.increment() }
            bus.on(.conversion, delivery: .isolated(to: listeners[index])) { _, _ in counter.increment() }
        }
        #expect(Self.count(ownedBy: owners[1], on: bus) == 2)
        #expect(Self.count(ownedBy: listeners[1], on: bus) == 1)

        bus.cancelAll(ownedBy: owners[1])
        bus.cancelAll(ownedBy: listeners[2])
        #expect(Self.count(ownedBy: owners[1], on: bus) == 0)
        #expect(Self.count(ownedBy: listeners[2], on: bus) == 0)
        #expect(bus.listenerCount(for: .conversion) == 6)
        emitter.fire(Self.conversion)
        await bus.flush()
        #expect(calls.map(\.count) == [3, 1, 2])
        #expect(Self.ownerCount(bus) == 4)
    }

    @Test func anOwnersListForgetsASubscriptionEndedByOff() async {
        let (bus, _) = EventBus.makeBus()
        let owner = Owner()
        let tokens = (0..<5).map { _ in bus.on(.conversion, owner: owner) { _, _ in } }
        // Ends in an order that moves entries of the list: first, last, middle.
        await bus.off(tokens[0])
        tokens[4].cancel()
        await bus.off(tokens[2])
        #expect(Self.count(ownedBy: owner, on: bus) == 2)
        bus.cancelAll(ownedBy: owner)
        #expect(bus.listenerCount(for: .conversion) == 0)
        #expect(Self.ownerCount(bus) == 0)
    }

    @Test func anOwnersListForgetsAOneShotSubscriptionOnceItRan() async {
        let (bus, emitter) = EventBus.makeBus()
        let listener = Listener()
        let calls = Counter()
        bus.once(.conversion, delivery: .isolated(to: listener)) { _, _ in calls.increment() }
        bus.on(.conversion, delivery: .isolated(to: listener)) { _, _ in calls.increment() }
        #expect(Self.count(ownedBy: listener, on: bus) == 2)
        emitter.fire(Self.conversion)
        await bus.flush()
        #expect(Self.count(ownedBy: listener, on: bus) == 1)
        bus.cancelAll(ownedBy: listener)
        emitter.fire(Self.conversion)
        await bus.flush()
        #expect(calls.count == 2)
        #expect(Self.ownerCount(bus) == 0)
    }

    @Test func anOwnersListIsDroppedWhenTheOwnerIsDeallocated() async {
        let (bus, _) = EventBus.makeBus()
        var owner: Owner? = Owner()
        let kept = Owner()
        for _ in 0..<3 { bus.on(.conversion, owner: owner!) { _, _ in } }
        bus.on(.conversion, owner: kept) { _, _ in }
        owner = nil
        #expect(bus.listenerCount(for: .conversion) == 1, "counting ends the subscriptions of owners that are gone")
        #expect(Self.ownerCount(bus) == 1)
        #expect(Self.count(ownedBy: kept, on: bus) == 1)
    }

    @Test func everyOwnersListIsDroppedWhenTheBusShutsDown() async {
        let (bus, emitter) = EventBus.makeBus()
        let owners = (0..<4).map { _ in Owner() }
        let listener = Listener()
        for owner in owners { bus.on(.conversion, owner: owner) { _, _ in } }
        bus.on(.conversion, delivery: .isolated(to: listener)) { _, _ in }
        emitter.shutdown()
        #expect(Self.ownerCount(bus) == 0)
        bus.cancelAll(ownedBy: owners[0])
        #expect(bus.listenerCount(for: .conversion) == 0)
    }

    /// A seeded run of subscribes, ends and owner teardowns against a model of who owns what.
    @Test(arguments: [1, 2, 3] as [UInt64])
    func theOwnerListsMatchAModelThroughRandomSubscribesEndsAndTeardowns(seed: UInt64) async {
        var random = SplitMix64(seed: seed)
        let (bus, _) = EventBus.makeBus()
        let owners = (0..<6).map { _ in Owner() }
        var live: [(token: EventSubscription, owner: Int?)] = []
        for _ in 0..<2_000 {
            switch random.next() % 10 {
            case 0..<5:
                let owner = Int(random.next() % 7)
                let event = SystemEvent.allCases[Int(random.next() % 3)]
                if owner == 6 {
                    live.append((bus.on(event) { _ in }, nil))
                } else {
                    live.append((bus.on(event, owner: owners[owner]) { _, _ in }, owner))
                }
            case 5..<9 where !live.isEmpty:
                let index = Int(random.next() % UInt64(live.count))
                live.swapAt(index, live.count - 1)
                live.removeLast().token.cancel()
            default:
                let owner = Int(random.next() % 6)
                bus.cancelAll(ownedBy: owners[owner])
                live.removeAll { $0.owner == owner }
            }
            for (index, owner) in owners.enumerated() {
                let expected = live.filter { $0.owner == index }.count
                guard Self.count(ownedBy: owner, on: bus) == expected else {
                    Issue.record("owner \(index): \(Self.count(ownedBy: owner, on: bus)) listed, \(expected) live")
                    return
                }
            }
        }
        let total = SystemEvent.allCases.prefix(3).reduce(0) { $0 + bus.listenerCount(for: $1) }
        #expect(total == live.count)
    }
}
