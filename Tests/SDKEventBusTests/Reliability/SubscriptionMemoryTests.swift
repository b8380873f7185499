import Testing

@testable import SDKEventBus

/// A million subscriptions come and go, of every kind, and the bus keeps nothing of them.
///
/// Each million-cycle loop runs on a dispatch queue of its own: it never suspends, and on the
/// cooperative pool it would hold one of the pool's two threads for its whole run, starving every
/// suite that runs in parallel.
@Suite(.timeLimit(.minutes(5))) struct SubscriptionMemoryTests {
    static let cycles = 1_000_000

    final class Owner: Sendable {}

    @available(macOS 14, iOS 17, tvOS 17, watchOS 10, *)
    @Test func millionPlainSubscriptionCyclesLeaveStorageAtItsBaseline() async {
        let (bus, _) = EventBus.makeBus()
        _ = bus.on(.ready) { _ in }  // one that stays
        // The slot table keeps its high-water mark (one row per concurrent subscription) while any
        // subscription lives, like an array keeps its capacity: measure after the first cycle.
        bus.cancel(bus.on(.bucketing) { _ in })
        let baseline = bus.storage.registryFootprint
        await DispatchQueueActor.run("million plain subscription cycles") { _ in
            for index in 0..<Self.cycles {
                let token = bus.on(SystemEvent.allCases[index % 10]) { _ in }
                if index % 2 == 0 { await bus.off(token) } else { bus.cancel(token) }
            }
        }
        #expect(bus.storage.registryFootprint == baseline)
        #expect(bus.listenerCount(for: .ready) == 1)
    }

    @available(macOS 14, iOS 17, tvOS 17, watchOS 10, *)
    @Test func millionOwnerBoundSubscriptionCyclesLeaveStorageAtItsBaseline() async {
        let (bus, _) = EventBus.makeBus()
        let baseline = bus.storage.registryFootprint
        await DispatchQueueActor.run("million owner-bound subscription cycles") { _ in
            for index in 0..<Self.cycles {
                let owner = Owner()
                let token = bus.on(SystemEvent.allCases[index % 10], owner: owner) { _, _ in }
                switch index % 3 {
                case 0: bus.cancelAll(ownedBy: owner)
                case 1: await bus.off(token)
                default: break  // the owner dies here; the bus sweeps the subscription by itself
                }
            }
        }
        for event in SystemEvent.allCases { #expect(bus.listenerCount(for: event) == 0) }
        #expect(bus.storage.registryFootprint == baseline)
    }

    @available(macOS 14, iOS 17, tvOS 17, watchOS 10, *)
    @Test func millionSequenceSubscriptionCyclesLeaveStorageAtItsBaseline() async {
        let (bus, _) = EventBus.makeBus()
        let baseline = bus.storage.registryFootprint
        await DispatchQueueActor.run("million sequence subscription cycles") { _ in
            for index in 0..<Self.cycles {
                _ = bus.events(SystemEvent.allCases[index % 10])
            }
        }
        #expect(bus.storage.registryFootprint == baseline)
        for event in SystemEvent.allCases { #expect(bus.listenerCount(for: event) == 0) }
    }

    // MARK: Callbacks and what they capture are released on every path

    /// Subscribes a callback that captures a canary, ends the subscription with `end`, and reports
    /// whether the canary was released.
    func canaryIsReleased(
        _ subscribe: (EventBus, Canary) async -> EventListenerToken,
        end: (EventBus, EventEmitter, EventListenerToken) async -> Void
    ) async -> Bool {
        let (bus, emitter) = EventBus.makeBus()
        let watch: WeakReference<Canary>
        let token: EventListenerToken
        do {
            let canary = Canary()
            watch = WeakReference(canary)
            token = await subscribe(bus, canary)
        }
        await end(bus, emitter, token)
        await bus.flush()
        return watch.object == nil
    }

    @Test func callbackIsReleasedAfterOff() async {
        #expect(
            await canaryIsReleased(
                { bus, canary in bus.on(.ready) { _ in _ = canary } },
                end: { bus, _, token in await bus.off(token) }
            ))
    }

    @Test func callbackIsReleasedAfterSynchronousCancel() async {
        #expect(
            await canaryIsReleased(
                { bus, canary in bus.on(.ready) { _ in _ = canary } },
                end: { bus, _, token in bus.cancel(token) }
            ))
    }

    @Test func oneShotCallbackIsReleasedAfterItFires() async {
        #expect(
            await canaryIsReleased(
                { bus, canary in bus.once(.bucketing) { _ in _ = canary } },
                end: { _, emitter, _ in emitter.fire(SamplePayloads.sample(.bucketing)) }
            ))
    }

    @Test func ownerBoundCallbackIsReleasedWhenItsOwnerDies() async {
        let released = await canaryIsReleased(
            { bus, canary in
                let owner = Owner()
                return bus.on(.ready, owner: owner) { _, _ in _ = canary }
            },
            end: { bus, _, _ in _ = bus.listenerCount(for: .ready) }
        )
        #expect(released)
    }

    @Test func everyCallbackIsReleasedWhenTheBusFinishes() async {
        #expect(
            await canaryIsReleased(
                { bus, canary in bus.on(.ready) { _ in _ = canary } },
                end: { _, emitter, _ in emitter.shutdown() }
            ))
    }

    @Test func sequenceSubscriptionIsReleasedWhenTheSequenceIsDropped() async {
        let (bus, _) = EventBus.makeBus()
        do {
            let stream = bus.events([.ready, .bucketing, .conversion])
            #expect(bus.listenerCount(for: .bucketing) == 1)
            _ = stream
        }
        #expect(bus.listenerCount(for: .bucketing) == 0)
        #expect(bus.storage.registryFootprint == 0)
    }
}
