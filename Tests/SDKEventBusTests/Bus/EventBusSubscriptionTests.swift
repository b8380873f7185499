import Testing

@testable import SDKEventBus
@testable import SDKEventBusConfig
@testable import SDKEventBusCore
@testable import SDKEventBusWire

/// One-shot, owner-bound, typed and replayed subscriptions.
@Suite(.timeLimit(.minutes(2))) @MainActor struct EventBusSubscriptionTests {
    let bus: EventBus
    let emitter: EventEmitter

    init() {
        (bus, emitter) = EventBus.makeBus()
    }

    /// A view model that owns subscriptions.
    @MainActor final class Screen {
        var received: [EventPayloadValue] = []
    }

    // MARK: Once

    @Test func onceListenerIsCalledAtMostOnceEvenWithSeveralFiresQueued() async {
        let calls = Recorder<Int>()
        _ = bus.once(.apiQueueReleased) { calls.append($0.number!) }
        for number in 0..<5 { emitter.fire(SamplePayloads.numbered(number)) }
        await bus.flush()
        #expect(calls.items == [0])
        #expect(bus.listenerCount(for: .apiQueueReleased) == 0)
    }

    @Test func onceListenerEndedBeforeAnyFireIsNeverCalled() async {
        let calls = Recorder<Int>()
        let token = bus.once(.ready) { _ in calls.append(1) }
        await bus.off(token)
        emitter.fire(.ready(ReadyPayload()))
        await bus.flush()
        #expect(calls.items.isEmpty)
    }

    @Test func onceListenerIsReleasedAfterItFires() async {
        let watch: WeakReference<Canary>
        do {
            let canary = Canary()
            watch = WeakReference(canary)
            _ = bus.once(.bucketing) { _ in _ = canary }
        }
        emitter.fire(SamplePayloads.sample(.bucketing))
        await bus.flush()
        #expect(watch.object == nil)
    }

    // MARK: Owner-bound

    @Test func ownerBoundCallbackReceivesItsOwner() async {
        let screen = Screen()
        bus.on(.bucketing, owner: screen) { screen, payload in screen.received.append(payload) }
        emitter.fire(SamplePayloads.sample(.bucketing))
        await bus.flush()
        #expect(screen.received.map(\.event) == [.bucketing])
    }

    @Test func busDoesNotRetainTheOwner() async {
        weak var weakScreen: Screen?
        do {
            let screen = Screen()
            weakScreen = screen
            bus.on(.ready, owner: screen) { _, _ in }
        }
        #expect(weakScreen == nil)
    }

    @Test func afterTheOwnerIsDeallocatedTheCallbackNeverRunsAndTheSubscriptionIsCleanedUp() async {
        let calls = Recorder<Int>()
        let watch: WeakReference<Canary>
        do {
            let screen = Screen()
            let canary = Canary()
            watch = WeakReference(canary)
            bus.on(.ready, owner: screen) { _, _ in
                _ = canary
                calls.append(1)
            }
            #expect(bus.listenerCount(for: .ready) == 1)
        }
        emitter.fire(.ready(ReadyPayload()))
        await bus.flush()
        #expect(calls.items.isEmpty)
        #expect(bus.listenerCount(for: .ready) == 0, "cleaned up without anyone calling off")
        #expect(watch.object == nil, "the callback and its captures are released")
    }

    @Test func deadOwnersSubscriptionsAreRemovedWhenListenersAreCounted() async {
        do {
            let screen = Screen()
            for event in SystemEvent.allCases { bus.on(event, owner: screen) { _, _ in } }
        }
        #expect(bus.listenerCount(for: .segments) == 0)
        #expect(bus.storage.footprint.entries == 0)
    }

    @Test func deadOwnersDoNotAccumulateAsNewOwnersSubscribe() async {
        for _ in 0..<1_000 {
            let screen = Screen()
            bus.on(.conversion, owner: screen) { _, _ in }
        }
        #expect(bus.storage.footprint.entries < 300, "sweeps run as owner-bound subscriptions grow")
    }

    @Test func cancelAllOwnedByEndsEveryOwnerSubscriptionFromItsDeinit() async {
        final class Model: Sendable {
            let bus: EventBus
            init(bus: EventBus) { self.bus = bus }
            deinit { bus.cancelAll(ownedBy: self) }
        }
        let calls = Recorder<Int>()
        var model: Model? = Model(bus: bus)
        for event in [SystemEvent.ready, .bucketing, .conversion] {
            bus.on(event, owner: model!) { _, _ in calls.append(1) }
        }
        let other = Screen()
        bus.on(.ready, owner: other) { _, _ in calls.append(2) }
        for payload in SamplePayloads.all { emitter.fire(payload) }
        model = nil
        await bus.flush()
        #expect(calls.items == [2], "events queued before the deinit are not delivered to its subscriptions")
        #expect(bus.listenerCount(for: .bucketing) == 0)
        #expect(bus.listenerCount(for: .ready) == 1)
    }

    @Test func cancelAllOwnedByLeavesOtherOwnersSubscriptions() async {
        let first = Screen()
        let second = Screen()
        bus.on(.ready, owner: first) { _, _ in }
        bus.on(.ready, owner: second) { _, _ in }
        bus.cancelAll(ownedBy: first)
        #expect(bus.listenerCount(for: .ready) == 1)
    }

    // MARK: Typed

    @Test func typedSubscriptionReceivesThePayloadStruct() async {
        let received = Recorder<BucketingPayload>()
        _ = bus.on(BucketingPayload.self) { received.append($0) }
        let payload = BucketingPayload(experienceId: "e", variationId: "v", visitorId: "u")
        emitter.fire(payload)
        emitter.fire(.conversion(ConversionPayload(goalId: "g", visitorId: "u")))
        await bus.flush()
        #expect(received.items == [payload])
    }

    @Test func typedFireReachesUntypedListenersAndUntypedFireReachesTypedOnes() async {
        let untyped = Recorder<EventPayloadValue>()
        let typed = Recorder<ConversionPayload>()
        _ = bus.on(.conversion) { untyped.append($0) }
        _ = bus.on(ConversionPayload.self) { typed.append($0) }
        let first = ConversionPayload(goalId: "g1", visitorId: "u")
        let second = ConversionPayload(goalId: "g2", visitorId: "u")
        emitter.fire(first)
        emitter.fire(.conversion(second))
        await bus.flush()
        #expect(untyped.items == [.conversion(first), .conversion(second)])
        #expect(typed.items == [first, second])
    }

    // MARK: Replay

    @Test func replayRulesAreDeclaredPerEvent() {
        for event in SystemEvent.allCases {
            let expected: ReplayRule =
                switch event {
                case .ready: .sticky
                case .configUpdated: .latestOnRequest
                default: .none
                }
            #expect(event.replayRule == expected)
        }
    }

    @Test func stickyReadyReachesALateListenerOnceAndOnlyThatListener() async {
        let early = Recorder<Int>()
        let late = Recorder<Int>()
        _ = bus.on(.ready) { _ in early.append(1) }
        emitter.fire(.ready(ReadyPayload()))
        await bus.flush()
        _ = bus.on(.ready) { _ in late.append(1) }
        await bus.flush()
        await bus.flush()
        #expect(early.items.count == 1, "existing listeners never get a duplicate")
        #expect(late.items.count == 1)
    }

    @Test func listenerSubscribingBetweenReadyAndItsDeliveryReceivesItExactlyOnce() async {
        let late = Recorder<Int>()
        emitter.fire(.ready(ReadyPayload()))
        _ = bus.on(.ready) { _ in late.append(1) }
        await bus.flush()
        #expect(late.items.count == 1)
    }

    @Test func onceAndTypedAndSequenceSubscriptionsAlsoReceiveStickyReady() async {
        emitter.fire(.ready(ReadyPayload()))
        await bus.flush()
        let calls = Recorder<String>()
        _ = bus.once(.ready) { _ in calls.append("once") }
        _ = bus.on(ReadyPayload.self) { _ in calls.append("typed") }
        let stream = bus.stream(.ready)
        await bus.flush()
        emitter.shutdown()
        #expect(calls.items == ["once", "typed"])
        var received: [EventPayloadValue] = []
        for await payload in stream { received.append(payload) }
        #expect(received == [.ready(ReadyPayload())])
    }

    @Test func latestConfigUpdateIsReplayedOnlyWhenAsked() async {
        let snapshot = Fixtures.config(named: "B")
        emitter.fire(.configUpdated(ConfigUpdatedPayload(snapshot: Fixtures.config(named: "A"))))
        emitter.fire(.configUpdated(ConfigUpdatedPayload(snapshot: snapshot)))
        let asked = Recorder<ConfigUpdatedPayload>()
        let plain = Recorder<ConfigUpdatedPayload>()
        _ = bus.on(ConfigUpdatedPayload.self, replayLatest: true) { asked.append($0) }
        _ = bus.on(ConfigUpdatedPayload.self) { plain.append($0) }
        await bus.flush()
        #expect(asked.items == [ConfigUpdatedPayload(snapshot: snapshot)], "only the latest")
        #expect(plain.items.isEmpty)
    }

    @Test func replayIsOrderedBeforeEventsFiredAfterTheSubscription() async {
        let names = Recorder<String>()
        emitter.fire(.configUpdated(ConfigUpdatedPayload(snapshot: Fixtures.config(named: "A"))))
        _ = bus.on(.configUpdated, replayLatest: true) { payload in
            guard case .configUpdated(let update) = payload else { return }
            names.append(update.snapshot?.project.name ?? "")
        }
        emitter.fire(.configUpdated(ConfigUpdatedPayload(snapshot: Fixtures.config(named: "B"))))
        await bus.flush()
        #expect(names.items == ["A", "B"])
    }

    @Test func nonReplayableEventsAreNotReplayedEvenWhenAsked() async {
        let calls = Recorder<Int>()
        emitter.fire(SamplePayloads.numbered(1))
        _ = bus.on(.apiQueueReleased, replayLatest: true) { calls.append($0.number!) }
        await bus.flush()
        #expect(calls.items.isEmpty)
    }

    // MARK: Shutdown

    @Test func finishEndsEverySubscriptionAndReleasesCallbacks() async {
        let watch: WeakReference<Canary>
        do {
            let canary = Canary()
            watch = WeakReference(canary)
            _ = bus.on(.ready) { _ in _ = canary }
        }
        emitter.shutdown()
        #expect(watch.object == nil)
        #expect(bus.listenerCount(for: .ready) == 0)
    }

    @Test func afterFinishFiresAndSubscriptionsDoNothing() async {
        let calls = Recorder<Int>()
        emitter.shutdown()
        let token = bus.on(.ready) { _ in calls.append(1) }
        emitter.fire(.ready(ReadyPayload()))
        await bus.flush()
        await bus.off(token)
        #expect(calls.items.isEmpty)
        #expect(bus.listenerCount(for: .ready) == 0)
    }

    @Test func eventsFiredBeforeFinishButNotDeliveredAreDropped() async {
        let calls = Recorder<Int>()
        _ = bus.on(.ready) { _ in calls.append(1) }
        emitter.fire(.ready(ReadyPayload()))
        emitter.shutdown()
        await bus.flush()
        #expect(calls.items.isEmpty)
    }
}
