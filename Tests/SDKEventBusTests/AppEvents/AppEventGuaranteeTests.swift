import Foundation
import SDKEventBus
import Testing

/// Every guarantee of the catalog bus, pinned on the app-event bus. (The
/// model-checked workout in `BusModelTests` drives the app bus as well.)
@Suite(.timeLimit(.minutes(2))) struct AppEventGuaranteeTests {
    struct Tick: AppEvent {
        let number: Int
    }

    struct Tock: AppEvent {
        let number: Int
    }

    /// A delivery context, and how to subscribe in it.
    enum Context: String, CaseIterable, CustomStringConvertible, Sendable {
        case mainActor
        case actor
        case immediate

        var description: String { rawValue }

        func subscribe(
            _ bus: AppEventBus,
            actor: Collector,
            _ handler: @escaping @Sendable (Tick) -> Void
        ) -> EventListenerToken {
            switch self {
            case .mainActor: bus.on(Tick.self) { handler($0) }
            case .actor: bus.on(Tick.self, delivery: .isolated(to: actor)) { _, tick in handler(tick) }
            case .immediate: bus.on(Tick.self, delivery: .immediate, callback: handler)
            }
        }
    }

    actor Collector {}

    /// What handlers saw, from any context.
    final class Log<Element: Sendable>: Sendable {
        private let storage = LockedValue<[Element]>([])
        func append(_ element: Element) { storage.withLock { $0.append(element) } }
        var items: [Element] { storage.withLock { $0 } }
    }

    @Test(arguments: Context.allCases)
    func eachSubscriberReceivesEventsInPublishOrder(in context: Context) async {
        let bus = AppEventBus()
        let collector = Collector()  // the bus holds an isolation actor weakly
        let log = Log<Int>()
        _ = context.subscribe(bus, actor: collector) { log.append($0.number) }
        for number in 0..<300 { bus.publish(Tick(number: number)) }
        await bus.flush()
        #expect(log.items == Array(0..<300))
        withExtendedLifetime(collector) {}
    }

    @Test(arguments: Context.allCases)
    func subscribersOfOneContextAreCalledInSubscriptionOrder(in context: Context) async {
        let bus = AppEventBus()
        let collector = Collector()
        let log = Log<Int>()
        for index in 0..<20 { _ = context.subscribe(bus, actor: collector) { _ in log.append(index) } }
        bus.publish(Tick(number: 0))
        await bus.flush()
        #expect(log.items == Array(0..<20))
    }

    @Test(arguments: Context.allCases)
    func eventsPublishedFromManyThreadsReachEachSubscriberExactlyOnceInEachThreadsOrder(in context: Context) async {
        let bus = AppEventBus()
        let collector = Collector()
        let log = Log<Int>()
        _ = context.subscribe(bus, actor: collector) { log.append($0.number) }
        let threads = 4
        let perThread = 500
        await withTaskGroup(of: Void.self) { group in
            for thread in 0..<threads {
                group.addTask {
                    await offThePool {
                        for index in 0..<perThread { bus.publish(Tick(number: thread * perThread + index)) }
                    }
                }
            }
        }
        await bus.flush()
        let received = log.items
        #expect(received.count == threads * perThread)
        #expect(Set(received).count == threads * perThread)
        for thread in 0..<threads {
            let own = received.filter { $0 / perThread == thread }
            #expect(own == own.sorted(), "thread \(thread)'s events out of order")
        }
        withExtendedLifetime(collector) {}
    }

    @Test func onceHandlerRunsOnceWhenPublishesRace() async {
        let bus = AppEventBus()
        let calls = Counter()
        bus.once(Tick.self, delivery: .immediate) { _ in calls.increment() }
        bus.once(Tick.self) { _ in calls.increment() }
        await withTaskGroup(of: Void.self) { group in
            for _ in 0..<4 {
                group.addTask { await offThePool { for number in 0..<100 { bus.publish(Tick(number: number)) } } }
            }
        }
        await bus.flush()
        #expect(calls.count == 2)
        #expect(bus.listenerCount(for: Tick.self) == 0)
    }

    @Test(arguments: Context.allCases)
    func noHandlerRunsAfterOffReturnsEvenForEventsAlreadyPublished(in context: Context) async {
        let bus = AppEventBus()
        let collector = Collector()
        let calls = Counter()
        let token = context.subscribe(bus, actor: collector) { _ in calls.increment() }
        for number in 0..<100 { bus.publish(Tick(number: number)) }
        await bus.off(token)
        let callsWhenOffReturned = calls.count
        for number in 0..<100 { bus.publish(Tick(number: number)) }
        await bus.flush()
        #expect(calls.count == callsWhenOffReturned)
        #expect(bus.listenerCount(for: Tick.self) == 0)
        withExtendedLifetime(collector) {}
    }

    @Test func handlersMayPublishSubscribeAndUnsubscribeWithoutDeadlock() async {
        let bus = AppEventBus()
        let log = Log<String>()
        let lateToken = LockedValue<EventListenerToken?>(nil)
        bus.on(Tick.self, delivery: .immediate) { tick in
            log.append("tick \(tick.number)")
            guard tick.number == 0 else { return }
            bus.publish(Tock(number: 1))
            lateToken.withLock { token in
                token = bus.on(Tick.self, delivery: .immediate) { log.append("late \($0.number)") }
            }
        }
        bus.on(Tock.self, delivery: .immediate) { tock in
            log.append("tock \(tock.number)")
            if let token = lateToken.withLock({ $0 }) { token.cancel() }
        }
        bus.publish(Tick(number: 0))
        bus.publish(Tick(number: 2))
        await bus.flush()
        #expect(log.items == ["tick 0", "tock 1", "tick 2"], "the nested event follows the current one")
    }

    @Test func endedSubscriptionsReleaseTheirHandlerAtOnceWithoutAnotherPublish() async {
        let bus = AppEventBus()
        var captured: Canary? = Canary()
        weak let watched = captured
        let token = bus.on(Tick.self) { [captured] _ in _ = captured }
        let immediate = bus.on(Tock.self, delivery: .immediate) { [captured] _ in _ = captured }
        captured = nil
        #expect(watched != nil)
        token.cancel()
        await bus.off(immediate)
        #expect(watched == nil, "released when the subscription ended, not at the next publish")
    }

    @MainActor final class Screen: Sendable {
        @MainActor var ticks = 0
        @MainActor var tocks = 0
    }

    @MainActor
    @Test func ownerCanEndOneOfItsSubscriptionsOrEveryOne() async {
        let bus = AppEventBus()
        let screen = Screen()
        let other = Screen()
        let screenTicks = bus.on(Tick.self, owner: screen) { screen, _ in screen.ticks += 1 }
        bus.on(Tock.self, owner: screen) { screen, _ in screen.tocks += 1 }
        bus.on(Tick.self, owner: other) { other, _ in other.ticks += 1 }

        screenTicks.cancel()
        bus.publish(Tick(number: 0))
        await bus.publishAndWait(Tock(number: 0))
        #expect((screen.ticks, screen.tocks, other.ticks) == (0, 1, 1))

        bus.cancelAll(ownedBy: screen)
        bus.publish(Tick(number: 1))
        await bus.publishAndWait(Tock(number: 1))
        #expect((screen.ticks, screen.tocks, other.ticks) == (0, 1, 2))
        #expect(bus.listenerCount(for: Tock.self) == 0)
    }

    @Test func publishingATypeNobodySubscribedToDoesNothing() async {
        let bus = AppEventBus()
        bus.publish(Tock(number: 0))
        await bus.flush()
        #expect(bus.listenerCount(for: Tock.self) == 0)
    }

    @Test func immediateOwnerBoundSubscriptionEndsWithItsOwner() async {
        let bus = AppEventBus()
        let log = Log<Int>()
        var owner: Canary? = Canary()
        bus.on(Tick.self, owner: owner!, delivery: .immediate) { _, tick in log.append(tick.number) }
        bus.publish(Tick(number: 1))
        owner = nil
        bus.publish(Tick(number: 2))
        await bus.flush()
        #expect(log.items == [1])
        #expect(bus.listenerCount(for: Tick.self) == 0)
    }
}
