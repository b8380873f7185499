import Dispatch
import Testing

@testable import SDKEventBus
@testable import SDKEventBusConfig
@testable import SDKEventBusCore
@testable import SDKEventBusWire

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
        _ = bus.on(.apiQueueReleased) { received.append($0.number!) }
        for number in 0..<100 {
            emitter.fire(SamplePayloads.numbered(number))
        }
        await bus.flush()
        #expect(received.items == Array(0..<100))
    }

    @Test func listenerOfSeveralEventsReceivesThemInFireOrderAcrossEvents() async {
        let received = Recorder<SystemEvent>()
        for event in SystemEvent.allCases {
            _ = bus.on(event) { received.append($0.event) }
        }
        for payload in SamplePayloads.all.reversed() {
            emitter.fire(payload)
        }
        await bus.flush()
        #expect(received.items == SystemEvent.allCases.reversed())
    }

    // MARK: 2. Subscription order within one fire

    @Test func listenersAreCalledInSubscriptionOrderWithinOneFire() async {
        let calls = Recorder<Int>()
        for index in 0..<20 {
            _ = bus.on(.ready) { _ in calls.append(index) }
        }
        emitter.fire(.ready(ReadyPayload()))
        await bus.flush()
        #expect(calls.items == Array(0..<20))
    }

    @Test func subscriptionOrderHoldsAfterOthersUnsubscribe() async {
        // Ending two listeners in three leaves holes that outnumber the live ones more than two to
        // one in a bucket of over 32, so the bucket is compacted: the live entries move.
        let calls = Recorder<Int>()
        var tokens: [EventListenerToken] = []
        for index in 0..<100 {
            tokens.append(bus.on(.ready) { _ in calls.append(index) })
        }
        let kept = Array(stride(from: 0, to: 100, by: 3))
        for index in 0..<100 where !kept.contains(index) {
            await bus.off(tokens[index])
        }
        #expect(readyEntries() < 100, "the bucket was compacted")
        for index in 100..<105 {
            tokens.append(bus.on(.ready) { _ in calls.append(index) })
        }
        emitter.fire(.ready(ReadyPayload()))
        await bus.flush()
        #expect(calls.items == kept + Array(100..<105))
    }

    /// The entries, ended ones included, of the buckets of `.ready`.
    func readyEntries() -> Int {
        let event = bus.index.position(of: .ready)
        return bus.storage.state.withLock { state in
            state.registry.buckets.filter { $0.event == event }.reduce(0) { $0 + $1.count }
        }
    }

    // MARK: 3. Exactly once for listeners subscribed when the event is fired

    @Test func listenerSubscribedWhenAnEventIsFiredReceivesItExactlyOnce() async {
        let received = Recorder<SystemEvent>()
        _ = bus.on(.bucketing) { received.append($0.event) }
        emitter.fire(SamplePayloads.sample(.bucketing))
        await bus.flush()
        await bus.flush()
        #expect(received.items == [.bucketing])
    }

    @Test func listenerSubscribedAfterAnEventIsFiredDoesNotReceiveIt() async {
        let received = Recorder<Int>()
        emitter.fire(SamplePayloads.numbered(1))
        // Not delivered yet: the main actor has not run the drain.
        _ = bus.on(.apiQueueReleased) { received.append($0.number!) }
        emitter.fire(SamplePayloads.numbered(2))
        await bus.flush()
        #expect(received.items == [2])
    }

    @Test func listenersOfOtherEventsAreNotCalled() async {
        let received = Recorder<SystemEvent>()
        _ = bus.on(.conversion) { received.append($0.event) }
        for payload in SamplePayloads.all where payload.event != .conversion {
            emitter.fire(payload)
        }
        await bus.flush()
        #expect(received.items.isEmpty)
    }

    @Test func sameClosureSubscribedTwiceIsTwoIndependentSubscriptions() async {
        let calls = Recorder<Int>()
        let callback: @MainActor @Sendable (EventPayloadValue) -> Void = { _ in calls.append(1) }
        let first = bus.on(.ready, callback: callback)
        let second = bus.on(.ready, callback: callback)
        #expect(first != second)
        emitter.fire(.ready(ReadyPayload()))
        await bus.flush()
        #expect(calls.items.count == 2)
        await bus.off(first)
        emitter.fire(.ready(ReadyPayload()))
        await bus.flush()
        #expect(calls.items.count == 3)
    }

    // MARK: Unsubscribing

    @Test func offPreventsDeliveryOfEventsFiredBeforeItButNotYetDelivered() async {
        let received = Recorder<Int>()
        let token = bus.on(.apiQueueReleased) { received.append($0.number!) }
        emitter.fire(SamplePayloads.numbered(1))
        await bus.off(token)
        await bus.flush()
        #expect(received.items.isEmpty)
    }

    @Test func cancelOnAnotherThreadWhileACallbackWaitsForItSkipsTheLaterListener() async {
        // The callback blocks the main actor until another thread has cancelled the later listener;
        // the pass, still running, must see that and skip it.
        let calls = Recorder<String>()
        let later = Recorder<EventListenerToken>()
        let bus = self.bus
        _ = bus.on(.ready) { _ in
            calls.append("first")
            let token = later.items[0]
            DispatchQueue.global().sync { token.cancel() }
        }
        later.append(bus.on(.ready) { _ in calls.append("second") })
        emitter.fire(.ready(ReadyPayload()))
        await bus.flush()
        #expect(calls.items == ["first"])
    }

    @Test func offIsIdempotent() async {
        let token = bus.on(.ready) { _ in }
        let other = bus.on(.ready) { _ in }
        await bus.off(token)
        await bus.off(token)
        token.cancel()
        #expect(bus.listenerCount(for: .ready) == 1)
        _ = other
    }

    @Test func offWithATokenFromAnotherBusChangesNothing() async {
        let (otherBus, _) = EventBus.makeBus()
        let calls = Recorder<Int>()
        _ = bus.on(.ready) { _ in calls.append(1) }
        let foreign = otherBus.on(.ready) { _ in }
        await bus.off(foreign)
        emitter.fire(.ready(ReadyPayload()))
        await bus.flush()
        #expect(calls.items == [1])
        #expect(bus.listenerCount(for: .ready) == 1)
        #expect(otherBus.listenerCount(for: .ready) == 1)
    }

    @Test func synchronousCancelFromDeinitEndsTheSubscription() async {
        final class Screen {
            let bus: EventBus
            var token: EventListenerToken?
            init(bus: EventBus) { self.bus = bus }
            deinit {
                if let token { token.cancel() }
            }
        }
        let calls = Recorder<Int>()
        var screen: Screen? = Screen(bus: bus)
        screen?.token = bus.on(.ready) { _ in calls.append(1) }
        emitter.fire(.ready(ReadyPayload()))
        screen = nil
        #expect(bus.listenerCount(for: .ready) == 0)
        await bus.flush()
        #expect(calls.items.isEmpty, "the event fired before the deinit is not delivered")
    }

    // MARK: 4. Re-entrancy

    @Test func callbackThatFiresDoesNotDeadlockAndItsEventFollowsTheCurrentOne() async {
        let calls = Recorder<String>()
        let bus = self.bus
        _ = bus.on(.ready) { _ in
            calls.append("ready 1")
            bus.fire(.conversion(ConversionPayload(goalId: "g", visitorId: "u")))
        }
        _ = bus.on(.ready) { _ in calls.append("ready 2") }
        _ = bus.on(.conversion) { _ in calls.append("conversion") }
        emitter.fire(.ready(ReadyPayload()))
        await bus.flush()
        await bus.flush()
        #expect(calls.items == ["ready 1", "ready 2", "conversion"])
    }

    @Test func callbackThatSubscribesGetsOnlyEventsFiredAfterItSubscribed() async {
        let calls = Recorder<String>()
        let bus = self.bus
        let subscribed = Recorder<EventListenerToken>()
        _ = bus.on(.apiQueueReleased) { payload in
            guard subscribed.items.isEmpty else { return }
            subscribed.append(bus.on(.apiQueueReleased) { calls.append("new \($0.number!)") })
        }
        emitter.fire(SamplePayloads.numbered(1))
        emitter.fire(SamplePayloads.numbered(2))  // fired before the new listener subscribes
        await bus.flush()
        emitter.fire(SamplePayloads.numbered(3))
        await bus.flush()
        #expect(calls.items == ["new 3"])
    }

    @Test func callbackThatUnsubscribesALaterListenerPreventsItsCall() async {
        let calls = Recorder<String>()
        let bus = self.bus
        let later = Recorder<EventListenerToken>()
        _ = bus.on(.ready) { _ in
            calls.append("first")
            later.items[0].cancel()
        }
        later.append(bus.on(.ready) { _ in calls.append("second") })
        emitter.fire(.ready(ReadyPayload()))
        emitter.fire(.ready(ReadyPayload()))
        await bus.flush()
        #expect(calls.items == ["first", "first"])
    }

    @Test func callbackThatUnsubscribesItselfIsNotCalledForQueuedEvents() async {
        let calls = Recorder<Int>()
        let bus = self.bus
        let mine = Recorder<EventListenerToken>()
        mine.append(
            bus.on(.apiQueueReleased) { payload in
                calls.append(payload.number!)
                mine.items[0].cancel()
            })
        for number in 0..<5 { emitter.fire(SamplePayloads.numbered(number)) }
        await bus.flush()
        #expect(calls.items == [0])
    }

    @Test func callbackThatFlushesInATaskDoesNotDeadlock() async {
        let calls = Recorder<String>()
        let bus = self.bus
        await withCheckedContinuation { (done: CheckedContinuation<Void, Never>) in
            _ = bus.on(.ready) { _ in
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
            token = bus.on(.ready) { _ in _ = canary }
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
            token = bus.on(.ready) { _ in _ = canary }
        }
        emitter.fire(.ready(ReadyPayload()))
        token.cancel()
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
                bus.on(.ready) { _ in
                    _ = canary
                    mine.items[0].cancel()
                })
        }
        emitter.fire(.ready(ReadyPayload()))
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
        _ = bus.on(.ready) { _ in
            MainActor.preconditionIsolated()
            onMain.append(true)
        }
        await Task.detached { [emitter] in emitter.fire(.ready(ReadyPayload())) }.value
        await bus.flush()
        #expect(onMain.items == [true])
    }

    @Test func fireReturnsBeforeCallbacksRun() async {
        let calls = Recorder<Int>()
        _ = bus.on(.ready) { _ in calls.append(1) }
        emitter.fire(.ready(ReadyPayload()))
        #expect(calls.items.isEmpty, "fire never waits for callbacks")
        await bus.flush()
        #expect(calls.items == [1])
    }

    @available(macOS 14, iOS 17, tvOS 17, watchOS 10, *)
    @Test func flushWithNothingPendingReturnsWithoutWaitingForTheMainActor() {
        // Main-actor listeners, but nothing queued for them: flush must return while the main actor
        // is blocked and could deliver nothing.
        let bus = self.bus
        _ = bus.on(.ready) { _ in }
        _ = bus.on(.conversion, delivery: .immediate) { _ in }
        emitter.fire(.conversion(ConversionPayload(goalId: "g", visitorId: "u")))  // delivered on this thread
        let flushed = DispatchSemaphore(value: 0)
        Task { @QueueActor in
            await bus.flush()
            flushed.signal()
        }
        // The test holds the main actor: it blocks the main thread (never a thread of the cooperative
        // pool) while flush runs on a queue of its own. Bounded, so that a flush that waits for the
        // main actor fails the test instead of hanging it.
        #expect(flushed.wait(timeout: .now() + 30) == .success, "flush waited for the blocked main actor")
    }

    @Test func flushFromManyTasksReturnsAfterTheirEventsAreDelivered() async {
        let received = Recorder<Int>()
        _ = bus.on(.apiQueueReleased) { received.append($0.number!) }
        let emitter = self.emitter
        let bus = self.bus
        await withTaskGroup(of: Int.self) { group in
            for number in 0..<50 {
                group.addTask {
                    emitter.fire(SamplePayloads.numbered(number))
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
        let first = bus.on(.bucketing) { _ in }
        _ = bus.on(.bucketing) { _ in }
        _ = bus.on(.conversion) { _ in }
        #expect(bus.listenerCount(for: .bucketing) == 2)
        #expect(bus.listenerCount(for: .conversion) == 1)
        #expect(bus.listenerCount(for: .ready) == 0)
        await bus.off(first)
        #expect(bus.listenerCount(for: .bucketing) == 1)
    }

    @Test func tokensAreUniqueAcrossSubscriptions() async {
        var tokens = Set<EventListenerToken>()
        for event in SystemEvent.allCases {
            for _ in 0..<10 {
                tokens.insert(bus.on(event) { _ in })
            }
        }
        #expect(tokens.count == 100)
    }
}
