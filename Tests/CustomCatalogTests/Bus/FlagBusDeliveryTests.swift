import SDKEventBusConfig
import SDKEventBusTesting
import Testing

/// The delivery guarantees of the bus for a catalog defined outside the package, in each delivery
/// context: fire order, subscription order, exactly once, and `off` as a final cut.
@Suite(.timeLimit(.minutes(2))) struct FlagBusDeliveryTests {
    let bus: FlagBus
    let emitter: FlagEmitter

    init() {
        (bus, emitter) = FlagBus.makeBus()
    }

    // MARK: 1. Per-listener fire order

    @Test(arguments: DeliveryContext.allCases)
    func eachListenerReceivesFiresInTheOrderTheyWereFired(_ context: DeliveryContext) async {
        let received = CallLog<Int>()
        Listeners(bus, in: context).on(.flagsChanged) { received.append($0.number!) }
        for number in 0..<100 { emitter.fire(.numbered(number)) }
        await bus.flush()
        #expect(received.items == Array(0..<100))
    }

    @Test(arguments: DeliveryContext.allCases)
    func listenerOfEveryEventReceivesThemInFireOrderAcrossEvents(_ context: DeliveryContext) async throws {
        let recorder = Listeners(bus, in: context).recorder()
        let fired: [FlagEventPayload] = FlagEventPayload.samples.reversed() + FlagEventPayload.samples
        for payload in fired { emitter.fire(payload) }
        await bus.flush()
        #expect(try await recorder.next(fired.count) == fired)
    }

    @Test(arguments: DeliveryContext.allCases)
    func firesFromSeveralTasksKeepEachTasksOrder(_ context: DeliveryContext) async {
        let received = CallLog<Int>()
        Listeners(bus, in: context).on(.flagsChanged) { received.append($0.number!) }
        let emitter = self.emitter
        await withTaskGroup(of: Void.self) { group in
            for task in 0..<4 {
                group.addTask {
                    for step in 0..<250 { emitter.fire(.numbered(task * 1_000 + step)) }
                }
            }
        }
        await bus.flush()
        #expect(received.count == 1_000)
        for task in 0..<4 {
            let own = received.items.filter { $0 / 1_000 == task }
            #expect(own == (0..<250).map { task * 1_000 + $0 }, "task \(task)'s fires arrived out of order")
        }
    }

    @Test(arguments: DeliveryContext.allCases)
    func typedFiresAndTypedListenersMeetUntypedOnes(_ context: DeliveryContext) async {
        let listeners = Listeners(bus, in: context)
        let typed = CallLog<FlagsChangedPayload>()
        let untyped = CallLog<FlagEventPayload>()
        listeners.on(FlagsChangedPayload.self) { typed.append($0) }
        listeners.on(.flagsChanged) { untyped.append($0) }
        let first = FlagsChangedPayload(changedKeys: ["myBoolFlag"])
        let second = FlagsChangedPayload(changedKeys: ["headerColor"])
        emitter.fire(first)
        emitter.fire(.flagsChanged(second))
        emitter.fire(FlagErrorPayload(message: "not a flags.changed"))
        await bus.flush()
        #expect(typed.items == [first, second])
        #expect(untyped.items == [.flagsChanged(first), .flagsChanged(second)])
    }

    // MARK: 2. Subscription order within one fire

    @Test(arguments: DeliveryContext.allCases)
    func listenersAreCalledInSubscriptionOrderWithinOneFire(_ context: DeliveryContext) async {
        let calls = CallLog<Int>()
        let listeners = Listeners(bus, in: context)
        for index in 0..<20 {
            listeners.on(.flagsChanged) { _ in calls.append(index) }
        }
        emitter.fire(.numbered(0))
        emitter.fire(.numbered(1))
        await bus.flush()
        #expect(calls.items == Array(0..<20) + Array(0..<20))
    }

    @Test(arguments: DeliveryContext.allCases)
    func subscriptionOrderHoldsAfterOthersUnsubscribe(_ context: DeliveryContext) async {
        let calls = CallLog<Int>()
        let listeners = Listeners(bus, in: context)
        let tokens = (0..<100).map { index in listeners.on(.error) { _ in calls.append(index) } }
        for index in stride(from: 0, to: 100, by: 2) { await bus.off(tokens[index]) }
        emitter.fire(.error(FlagErrorPayload(message: "boom")))
        await bus.flush()
        #expect(calls.items == Array(stride(from: 1, to: 100, by: 2)))
    }

    // MARK: 3. Exactly once, for listeners subscribed when the event is fired

    @Test(arguments: DeliveryContext.allCases)
    func listenerSubscribedWhenAnEventIsFiredReceivesItExactlyOnce(_ context: DeliveryContext) async {
        let received = CallLog<FlagEvent>()
        Listeners(bus, in: context).on(.error) { received.append($0.event) }
        emitter.fire(.error(FlagErrorPayload(message: "boom")))
        await bus.flush()
        await bus.flush()
        #expect(received.items == [.error])
    }

    @Test(arguments: DeliveryContext.allCases)
    func listenerSubscribedAfterAnEventIsFiredDoesNotReceiveIt(_ context: DeliveryContext) async {
        let received = CallLog<Int>()
        let listeners = Listeners(bus, in: context)
        await listeners.withDeliveryHeld { [emitter] _ in
            emitter.fire(.numbered(1))
            // On the main actor and the actor it is queued, not delivered yet.
            listeners.on(.flagsChanged) { received.append($0.number!) }
            emitter.fire(.numbered(2))
        }
        await bus.flush()
        #expect(received.items == [2])
    }

    @Test(arguments: DeliveryContext.allCases)
    func listenersOfOtherEventsAreNotCalled(_ context: DeliveryContext) async {
        let received = CallLog<FlagEvent>()
        Listeners(bus, in: context).on(.error) { received.append($0.event) }
        for payload in FlagEventPayload.samples where payload.event != .error { emitter.fire(payload) }
        await bus.flush()
        #expect(received.items.isEmpty)
    }

    @Test(arguments: DeliveryContext.allCases)
    func onceListenerIsCalledAtMostOnceEvenWithSeveralFiresQueued(_ context: DeliveryContext) async {
        let calls = CallLog<Int>()
        let listeners = Listeners(bus, in: context)
        await listeners.withDeliveryHeld { [emitter] _ in
            listeners.once(.flagsChanged) { calls.append($0.number!) }
            for number in 0..<5 { emitter.fire(.numbered(number)) }
        }
        await bus.flush()
        #expect(calls.items == [0])
        #expect(bus.listenerCount(for: .flagsChanged) == 0)
    }

    // MARK: Unsubscribing: `off` is final

    @Test(arguments: DeliveryContext.queued)
    func offPreventsDeliveryOfFiresQueuedBeforeIt(_ context: DeliveryContext) async {
        let received = CallLog<Int>()
        let listeners = Listeners(bus, in: context)
        await listeners.withDeliveryHeld { [bus, emitter] _ in
            let token = listeners.on(.flagsChanged) { received.append($0.number!) }
            for number in 0..<10 { emitter.fire(.numbered(number)) }
            await bus.off(token)
        }
        await bus.flush()
        #expect(received.items.isEmpty)
    }

    @Test(arguments: DeliveryContext.allCases)
    func noCallbackRunsAfterOffReturnsWhileFiresAreInFlight(_ context: DeliveryContext) async {
        let received = CallLog<Int>()
        let token = Listeners(bus, in: context).on(.flagsChanged) { received.append($0.number!) }
        let emitter = self.emitter
        let firing = Task.detached {
            for number in 0..<5_000 { emitter.fire(.numbered(number)) }
        }
        await received.waitForCount(1)
        await bus.off(token)
        let receivedWhenOffReturned = received.count
        await firing.value
        await bus.flush()
        #expect(received.count == receivedWhenOffReturned, "a callback ran after off returned")
        #expect(received.items == Array(0..<receivedWhenOffReturned), "and those before it ran in fire order")
    }

    @Test(arguments: DeliveryContext.allCases)
    func offIsIdempotentAndIgnoresAnotherBussToken(_ context: DeliveryContext) async {
        let (otherBus, otherEmitter) = FlagBus.makeBus()
        let calls = CallLog<Int>()
        let listeners = Listeners(bus, in: context)
        let token = listeners.on(.error) { _ in calls.append(1) }
        let kept = listeners.on(.error) { _ in calls.append(2) }
        let foreign = Listeners(otherBus, in: context).on(.error) { _ in calls.append(3) }
        await bus.off(token)
        await bus.off(token)
        token.cancel()
        await bus.off(foreign)
        emitter.fire(.error(FlagErrorPayload(message: "boom")))
        otherEmitter.fire(.error(FlagErrorPayload(message: "boom")))
        await bus.flush()
        await otherBus.flush()
        #expect(calls.items.sorted() == [2, 3])
        #expect(bus.listenerCount(for: .error) == 1)
        #expect(otherBus.listenerCount(for: .error) == 1)
        _ = kept
    }

    @Test(arguments: DeliveryContext.queued)
    func synchronousCancelFromADeinitEndsTheSubscriptionBeforeQueuedFires(_ context: DeliveryContext) async {
        final class Screen: Sendable {
            let bus: FlagBus
            let token: EventSubscription
            init(bus: FlagBus, token: EventSubscription) {
                self.bus = bus
                self.token = token
            }
            deinit { token.cancel() }
        }
        let calls = CallLog<Int>()
        let listeners = Listeners(bus, in: context)
        await listeners.withDeliveryHeld { [bus, emitter] _ in
            var screen: Screen? = Screen(bus: bus, token: listeners.on(.error) { _ in calls.append(1) })
            emitter.fire(.error(FlagErrorPayload(message: "boom")))
            withExtendedLifetime(screen) {}
            screen = nil
            #expect(bus.listenerCount(for: .error) == 0)
        }
        await bus.flush()
        #expect(calls.items.isEmpty, "the fire queued before the deinit is not delivered")
    }

    @Test(arguments: DeliveryContext.allCases)
    func offReleasesTheCallbackAndWhatItCaptured(_ context: DeliveryContext) async {
        final class Canary: Sendable {}
        weak var weakCanary: Canary?
        let token: EventSubscription
        do {
            let canary = Canary()
            weakCanary = canary
            token = Listeners(bus, in: context).on(.error) { _ in _ = canary }
        }
        emitter.fire(.error(FlagErrorPayload(message: "boom")))
        #expect(weakCanary != nil)
        await bus.off(token)
        await bus.flush()
        #expect(weakCanary == nil)
    }

    // MARK: Diagnostics and shutdown

    @Test func listenerCountCountsLiveSubscriptionsInEveryContext() async {
        let tokens = DeliveryContext.allCases.map { context in
            Listeners(bus, in: context).on(.flagsChanged) { _ in }
        }
        #expect(bus.listenerCount(for: .flagsChanged) == 3)
        #expect(bus.listenerCount(for: .initialized) == 0)
        await bus.off(tokens[0])
        #expect(bus.listenerCount(for: .flagsChanged) == 2)
    }

    @Test(arguments: DeliveryContext.allCases)
    func afterShutdownFiresAndSubscriptionsDoNothing(_ context: DeliveryContext) async {
        let calls = CallLog<Int>()
        emitter.shutdown()
        Listeners(bus, in: context).on(.error) { _ in calls.append(1) }
        emitter.fire(.error(FlagErrorPayload(message: "boom")))
        await bus.flush()
        #expect(calls.items.isEmpty)
        #expect(bus.listenerCount(for: .error) == 0)
    }
}
