import SDKEventBusConfig
import Testing

/// Replay as the flag catalog declares it: `initialized` is sticky, the other events are not.
@Suite(.timeLimit(.minutes(2))) struct FlagBusReplayTests {
    let bus: FlagBus
    let emitter: FlagEmitter

    init() {
        (bus, emitter) = FlagBus.makeBus()
    }

    @Test(arguments: DeliveryContext.allCases)
    func stickyInitializedReachesALateListenerOnceAndOnlyThatListener(_ context: DeliveryContext) async {
        let early = CallLog<InitializedPayload>()
        let late = CallLog<InitializedPayload>()
        let listeners = Listeners(bus, in: context)
        listeners.on(InitializedPayload.self) { early.append($0) }
        emitter.fire(InitializedPayload(source: .cache))
        await bus.flush()
        listeners.on(InitializedPayload.self) { late.append($0) }
        await bus.flush()
        await bus.flush()
        #expect(early.items == [InitializedPayload(source: .cache)], "existing listeners never get a duplicate")
        #expect(late.items == [InitializedPayload(source: .cache)])
    }

    @Test(arguments: DeliveryContext.allCases)
    func listenerSubscribingBetweenInitializedAndItsDeliveryReceivesItExactlyOnce(_ context: DeliveryContext) async {
        let late = CallLog<FlagEvent>()
        emitter.fire(.initialized(InitializedPayload(source: .live)))
        Listeners(bus, in: context).on(.initialized) { late.append($0.event) }
        await bus.flush()
        await bus.flush()
        #expect(late.items == [.initialized])
    }

    @Test(arguments: DeliveryContext.allCases)
    func onceListenerAlsoReceivesStickyInitialized(_ context: DeliveryContext) async {
        emitter.fire(.initialized(InitializedPayload(source: .live)))
        await bus.flush()
        let calls = CallLog<FlagEvent>()
        Listeners(bus, in: context).once(.initialized) { calls.append($0.event) }
        await bus.flush()
        #expect(calls.items == [.initialized])
        #expect(bus.listenerCount(for: .initialized) == 0, "the one-shot ended with its replay")
    }

    @Test(arguments: DeliveryContext.allCases)
    func replayIsDeliveredBeforeFiresAfterTheSubscription(_ context: DeliveryContext) async {
        let sources = CallLog<Readiness.Source>()
        emitter.fire(InitializedPayload(source: .cache))
        Listeners(bus, in: context).on(InitializedPayload.self) { sources.append($0.source) }
        emitter.fire(InitializedPayload(source: .live))
        await bus.flush()
        #expect(sources.items == [.cache, .live], "only the latest earlier fire, then the new one")
    }

    @Test(arguments: DeliveryContext.allCases)
    func eventsWithoutReplayAreNotReplayedEvenWhenAsked(_ context: DeliveryContext) async {
        let calls = CallLog<FlagEvent>()
        emitter.fire(.numbered(1))
        emitter.fire(.error(FlagErrorPayload(message: "boom")))
        await bus.flush()
        let listeners = Listeners(bus, in: context)
        listeners.on(.flagsChanged, replayLatest: true) { calls.append($0.event) }
        listeners.on(.error, replayLatest: true) { calls.append($0.event) }
        await bus.flush()
        #expect(calls.items.isEmpty)
    }

    @Test func eventSequenceAlsoReceivesStickyInitializedAndFinishesAtShutdown() async {
        emitter.fire(.initialized(InitializedPayload(source: .live)))
        let stream = bus.stream(of: InitializedPayload.self)
        emitter.fire(.numbered(1))
        await bus.flush()
        emitter.shutdown()
        var received: [InitializedPayload] = []
        for await payload in stream { received.append(payload) }
        #expect(received == [InitializedPayload(source: .live)])
    }

    @Test func actorListenersEndWhenTheirActorIsDeallocated() async {
        let calls = CallLog<FlagEvent>()
        do {
            let actor = ListenerActor()
            withExtendedLifetime(actor) {
                Listeners(bus, in: .actor, isolation: actor).on(.error) { calls.append($0.event) }
                #expect(bus.listenerCount(for: .error) == 1)
            }
        }
        emitter.fire(.error(FlagErrorPayload(message: "nobody listens")))
        await bus.flush()
        #expect(calls.items.isEmpty)
        #expect(bus.listenerCount(for: .error) == 0, "ended without anyone calling off")
    }
}
