import Dispatch
import Testing

@testable import SDKEventBus

/// The delivery guarantees of SPEC.md § The bus, one test each.
@Suite(.timeLimit(.minutes(2))) @MainActor struct EventBusDeliveryTests {
    let bus: EventBus
    let emitter: EventEmitter

    init() {
        (bus, emitter) = EventBus.makeBus()
    }

    // MARK: 1. Per-listener fire order

    @Test func eachListenerReceivesEventsInTheOrderTheyWereFired() async {
        let received = Recorder<Int>()
        _ = await bus.on(.apiQueueReleased) { received.append($0.number!) }
        for number in 0..<100 {
            await emitter.fire(SamplePayloads.numbered(number))
        }
        await bus.flush()
        #expect(received.items == Array(0..<100))
    }

    @Test func listenerOfSeveralEventsReceivesThemInFireOrderAcrossEvents() async {
        let received = Recorder<SystemEvent>()
        for event in SystemEvent.allCases {
            _ = await bus.on(event) { received.append($0.event) }
        }
        for payload in SamplePayloads.all.reversed() {
            await emitter.fire(payload)
        }
        await bus.flush()
        #expect(received.items == SystemEvent.allCases.reversed())
    }

    // MARK: 2. Subscription order within one fire

    @Test func listenersAreCalledInSubscriptionOrderWithinOneFire() async {
        let calls = Recorder<Int>()
        for index in 0..<20 {
            _ = await bus.on(.ready) { _ in calls.append(index) }
        }
        await emitter.fire(.ready(ReadyPayload()))
        await bus.flush()
        #expect(calls.items == Array(0..<20))
    }

    @Test func subscriptionOrderHoldsAfterOthersUnsubscribe() async {
        let calls = Recorder<Int>()
        var tokens: [EventListenerToken] = []
        for index in 0..<100 {
            tokens.append(await bus.on(.ready) { _ in calls.append(index) })
        }
        for index in stride(from: 0, to: 100, by: 2) {
            await bus.off(tokens[index])
        }
        await emitter.fire(.ready(ReadyPayload()))
        await bus.flush()
        #expect(calls.items == Array(stride(from: 1, to: 100, by: 2)))
    }

    // MARK: 3. Exactly once for listeners subscribed when the event is fired

    @Test func listenerSubscribedWhenAnEventIsFiredReceivesItExactlyOnce() async {
        let received = Recorder<SystemEvent>()
        _ = await bus.on(.bucketing) { received.append($0.event) }
        await emitter.fire(SamplePayloads.all[SystemEvent.bucketing.ordinal])
        await bus.flush()
        await bus.flush()
        #expect(received.items == [.bucketing])
    }

    @Test func listenerSubscribedAfterAnEventIsFiredDoesNotReceiveIt() async {
        let received = Recorder<Int>()
        await emitter.fire(SamplePayloads.numbered(1))
        // Not delivered yet: the main actor has not run the drain.
        _ = await bus.on(.apiQueueReleased) { received.append($0.number!) }
        await emitter.fire(SamplePayloads.numbered(2))
        await bus.flush()
        #expect(received.items == [2])
    }

    @Test func listenersOfOtherEventsAreNotCalled() async {
        let received = Recorder<SystemEvent>()
        _ = await bus.on(.conversion) { received.append($0.event) }
        for payload in SamplePayloads.all where payload.event != .conversion {
            await emitter.fire(payload)
        }
        await bus.flush()
        #expect(received.items.isEmpty)
    }

    @Test func sameClosureSubscribedTwiceIsTwoIndependentSubscriptions() async {
        let calls = Recorder<Int>()
        let callback: @MainActor @Sendable (EventPayloadValue) -> Void = { _ in calls.append(1) }
        let first = await bus.on(.ready, callback: callback)
        let second = await bus.on(.ready, callback: callback)
        #expect(first != second)
        await emitter.fire(.ready(ReadyPayload()))
        await bus.flush()
        #expect(calls.items.count == 2)
        await bus.off(first)
        await emitter.fire(.ready(ReadyPayload()))
        await bus.flush()
        #expect(calls.items.count == 3)
    }

    // MARK: Unsubscribing

    @Test func offPreventsDeliveryOfEventsFiredBeforeItButNotYetDelivered() async {
        let received = Recorder<Int>()
        let token = await bus.on(.apiQueueReleased) { received.append($0.number!) }
        await emitter.fire(SamplePayloads.numbered(1))
        await bus.off(token)
        await bus.flush()
        #expect(received.items.isEmpty)
    }

    @Test func offFromAnotherThreadDuringDeliverySkipsTheRemainingCallbacks() async {
        let calls = Recorder<String>()
        let later = Recorder<EventListenerToken>()
        let bus = self.bus
        _ = await bus.on(.ready) { _ in
            calls.append("first")
            let token = later.items[0]
            DispatchQueue.global().sync { bus.cancel(token) }
        }
        later.append(await bus.on(.ready) { _ in calls.append("second") })
        await emitter.fire(.ready(ReadyPayload()))
        await bus.flush()
        #expect(calls.items == ["first"])
    }

    @Test func offIsIdempotent() async {
        let token = await bus.on(.ready) { _ in }
        let other = await bus.on(.ready) { _ in }
        await bus.off(token)
        await bus.off(token)
        bus.cancel(token)
        #expect(await bus.listenerCount(for: .ready) == 1)
        _ = other
    }

    @Test func offWithATokenFromAnotherBusChangesNothing() async {
        let (otherBus, _) = EventBus.makeBus()
        let calls = Recorder<Int>()
        _ = await bus.on(.ready) { _ in calls.append(1) }
        let foreign = await otherBus.on(.ready) { _ in }
        await bus.off(foreign)
        await emitter.fire(.ready(ReadyPayload()))
        await bus.flush()
        #expect(calls.items == [1])
        #expect(await bus.listenerCount(for: .ready) == 1)
        #expect(await otherBus.listenerCount(for: .ready) == 1)
    }

    @Test func synchronousCancelFromDeinitEndsTheSubscription() async {
        final class Screen {
            let bus: EventBus
            var token: EventListenerToken?
            init(bus: EventBus) { self.bus = bus }
            deinit {
                if let token { bus.cancel(token) }
            }
        }
        let calls = Recorder<Int>()
        var screen: Screen? = Screen(bus: bus)
        screen?.token = await bus.on(.ready) { _ in calls.append(1) }
        await emitter.fire(.ready(ReadyPayload()))
        screen = nil
        #expect(await bus.listenerCount(for: .ready) == 0)
        await bus.flush()
        #expect(calls.items.isEmpty, "the event fired before the deinit is not delivered")
    }

    // MARK: 4. Re-entrancy

    @Test func callbackThatFiresDoesNotDeadlockAndItsEventFollowsTheCurrentOne() async {
        let calls = Recorder<String>()
        let bus = self.bus
        _ = await bus.on(.ready) { _ in
            calls.append("ready 1")
            bus.fire(.conversion(ConversionPayload(goalId: "g", visitorId: "u")))
        }
        _ = await bus.on(.ready) { _ in calls.append("ready 2") }
        _ = await bus.on(.conversion) { _ in calls.append("conversion") }
        await emitter.fire(.ready(ReadyPayload()))
        await bus.flush()
        await bus.flush()
        #expect(calls.items == ["ready 1", "ready 2", "conversion"])
    }

    @Test func callbackThatSubscribesGetsOnlyEventsFiredAfterItSubscribed() async {
        let calls = Recorder<String>()
        let bus = self.bus
        let subscribed = Recorder<EventListenerToken>()
        _ = await bus.on(.apiQueueReleased) { payload in
            guard subscribed.items.isEmpty else { return }
            subscribed.append(bus.subscribe(.apiQueueReleased) { calls.append("new \($0.number!)") })
        }
        await emitter.fire(SamplePayloads.numbered(1))
        await emitter.fire(SamplePayloads.numbered(2))  // fired before the new listener subscribes
        await bus.flush()
        await emitter.fire(SamplePayloads.numbered(3))
        await bus.flush()
        #expect(calls.items == ["new 3"])
    }

    @Test func callbackThatUnsubscribesALaterListenerPreventsItsCall() async {
        let calls = Recorder<String>()
        let bus = self.bus
        let later = Recorder<EventListenerToken>()
        _ = await bus.on(.ready) { _ in
            calls.append("first")
            bus.cancel(later.items[0])
        }
        later.append(await bus.on(.ready) { _ in calls.append("second") })
        await emitter.fire(.ready(ReadyPayload()))
        await emitter.fire(.ready(ReadyPayload()))
        await bus.flush()
        #expect(calls.items == ["first", "first"])
    }

    @Test func callbackThatUnsubscribesItselfIsNotCalledForQueuedEvents() async {
        let calls = Recorder<Int>()
        let bus = self.bus
        let mine = Recorder<EventListenerToken>()
        mine.append(
            await bus.on(.apiQueueReleased) { payload in
                calls.append(payload.number!)
                bus.cancel(mine.items[0])
            })
        for number in 0..<5 { await emitter.fire(SamplePayloads.numbered(number)) }
        await bus.flush()
        #expect(calls.items == [0])
    }

    @Test func callbackThatFlushesInATaskDoesNotDeadlock() async {
        let calls = Recorder<String>()
        let bus = self.bus
        await withCheckedContinuation { (done: CheckedContinuation<Void, Never>) in
            _ = bus.subscribe(.ready) { _ in
                calls.append("ready")
                Task {
                    await bus.flush()
                    done.resume()
                }
            }
            bus.fire(.ready(ReadyPayload()))
        }
        #expect(calls.items == ["ready"])
    }

    // MARK: 5. No retained callback after the subscription ended

    @Test func offReleasesTheCallbackAndWhatItCaptured() async {
        weak var weakCanary: Canary?
        let token: EventListenerToken
        do {
            let canary = Canary()
            weakCanary = canary
            token = await bus.on(.ready) { _ in _ = canary }
        }
        #expect(weakCanary != nil)
        await bus.off(token)
        #expect(weakCanary == nil)
    }

    @Test func callbackEndedWithDeliveriesQueuedIsReleasedOnceTheyAreSkipped() async {
        weak var weakCanary: Canary?
        let token: EventListenerToken
        do {
            let canary = Canary()
            weakCanary = canary
            token = await bus.on(.ready) { _ in _ = canary }
        }
        await emitter.fire(.ready(ReadyPayload()))
        bus.cancel(token)
        await bus.flush()
        #expect(weakCanary == nil)
    }

    @Test func callbackEndingItselfDuringDeliveryIsReleasedBeforeFlushReturns() async {
        let bus = self.bus
        let mine = Recorder<EventListenerToken>()
        let watch: WeakReference<Canary>
        do {
            let canary = Canary()
            watch = WeakReference(canary)
            mine.append(
                await bus.on(.ready) { _ in
                    _ = canary
                    bus.cancel(mine.items[0])
                })
        }
        await emitter.fire(.ready(ReadyPayload()))
        // Flush from another executor: it resumes while the main actor may still be in the drain.
        let released = await Task.detached {
            await bus.flush()
            return watch.object == nil
        }.value
        #expect(released)
    }

    // MARK: Threading, flush, diagnostics

    @Test func callbacksRunOnTheMainActor() async {
        let onMain = Recorder<Bool>()
        _ = await bus.on(.ready) { _ in
            MainActor.preconditionIsolated()
            onMain.append(true)
        }
        await Task.detached { [emitter] in await emitter.fire(.ready(ReadyPayload())) }.value
        await bus.flush()
        #expect(onMain.items == [true])
    }

    @Test func fireReturnsBeforeCallbacksRun() async {
        let calls = Recorder<Int>()
        _ = await bus.on(.ready) { _ in calls.append(1) }
        await emitter.fire(.ready(ReadyPayload()))
        #expect(calls.items.isEmpty, "fire never waits for callbacks")
        await bus.flush()
        #expect(calls.items == [1])
    }

    @Test func flushReturnsAtOnceWhenNothingIsPending() async {
        await bus.flush()
        _ = await bus.on(.ready) { _ in }
        await bus.flush()
    }

    @Test func flushFromManyTasksReturnsAfterTheirEventsAreDelivered() async {
        let received = Recorder<Int>()
        _ = await bus.on(.apiQueueReleased) { received.append($0.number!) }
        let emitter = self.emitter
        let bus = self.bus
        await withTaskGroup(of: Int.self) { group in
            for number in 0..<50 {
                group.addTask {
                    await emitter.fire(SamplePayloads.numbered(number))
                    await bus.flush()
                    return number
                }
            }
            for await number in group {
                #expect(received.items.contains(number), "flush returned before \(number) was delivered")
            }
        }
    }

    @Test func listenerCountCountsLiveSubscriptionsPerEvent() async {
        let first = await bus.on(.bucketing) { _ in }
        _ = await bus.on(.bucketing) { _ in }
        _ = await bus.on(.conversion) { _ in }
        #expect(await bus.listenerCount(for: .bucketing) == 2)
        #expect(await bus.listenerCount(for: .conversion) == 1)
        #expect(await bus.listenerCount(for: .ready) == 0)
        await bus.off(first)
        #expect(await bus.listenerCount(for: .bucketing) == 1)
    }

    @Test func tokensAreUniqueAcrossSubscriptions() async {
        var tokens = Set<EventListenerToken>()
        for event in SystemEvent.allCases {
            for _ in 0..<10 {
                tokens.insert(await bus.on(event) { _ in })
            }
        }
        #expect(tokens.count == 100)
    }
}
