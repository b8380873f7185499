import Testing

@testable import SDKEventBus
@testable import SDKEventBusConfig
@testable import SDKEventBusCore
@testable import SDKEventBusWire

/// A million subscriptions come and go, of every kind, and the bus keeps nothing of them.
///
/// Its footprint — the slot table's and side tables' capacity, buckets and their chunks' capacity,
/// lanes, lane buffers' capacity and replay storage, not just a count of entries — after a million
/// cycles is exactly what it was after the first few. What is kept for the next subscriptions rather
/// than given back (the slot table's rows up to 64, a dictionary's capacity) is asserted as it is;
/// an empty bucket keeps no chunk (issue 23; lane buffers after a burst are in MemoryReturnTests).
///
/// Each million-cycle loop runs on a dispatch queue of its own: it never suspends, and on the
/// cooperative pool it would hold one of the pool's two threads for its whole run, starving every
/// suite that runs in parallel.
@Suite(.timeLimit(.minutes(5))) struct SubscriptionMemoryTests {
    static let cycles = 1_000_000

    final class Owner: Sendable {}

    @available(macOS 14, iOS 17, tvOS 17, watchOS 10, *)
    @Test func millionPlainSubscriptionCyclesLeaveTheFootprintAtItsBaseline() async {
        let (bus, _) = EventBus.makeBus()
        _ = bus.on(.ready) { _ in }  // one that stays
        // The warm-up makes every event's bucket, and the slot table's row for a second
        // subscription: the baseline is what any later cycle may reuse.
        for event in SystemEvent.allCases { bus.on(event) { _ in }.cancel() }
        let baseline = bus.storage.footprint
        await DispatchQueueActor.run("million plain subscription cycles") { _ in
            for index in 0..<Self.cycles {
                let token = bus.on(SystemEvent.allCases[index % 10]) { _ in }
                if index % 2 == 0 { await bus.off(token) } else { token.cancel() }
            }
        }
        let after = bus.storage.footprint
        #expect(after == baseline, "nothing grew with the cycles")
        #expect(after.liveSubscriptions == 1 && bus.listenerCount(for: .ready) == 1)
        #expect(after.lanes == 2 && after.laneBufferCapacity == 0 && after.retainedReplays == 0)
        // The ten buckets stay, but only the one with a live subscription keeps a chunk; only its
        // event is routed.
        #expect(after.buckets == 10)
        #expect(after.bucketChunkCapacity == ListenerBucket.firstChunkCapacity)
        #expect(after.routes == 1)
    }

    @available(macOS 14, iOS 17, tvOS 17, watchOS 10, *)
    @Test func millionOwnerBoundSubscriptionCyclesLeaveTheFootprintAtItsBaseline() async {
        let (bus, _) = EventBus.makeBus()
        @Sendable func cycles(_ count: Int) async {
            for index in 0..<count {
                let owner = Owner()
                let token = bus.on(SystemEvent.allCases[index % 10], owner: owner) { _, _ in }
                switch index % 3 {
                case 0: bus.cancelAll(ownedBy: owner)
                case 1: await bus.off(token)
                default: break  // the owner dies here; the bus sweeps the subscription by itself
                }
            }
            // Counting sweeps the subscriptions of owners that died since the last sweep.
            for event in SystemEvent.allCases { #expect(bus.listenerCount(for: event) == 0) }
        }
        await cycles(30)  // one of each kind in each event
        let baseline = bus.storage.footprint
        await DispatchQueueActor.run("million owner-bound subscription cycles") { _ in await cycles(Self.cycles) }
        let after = bus.storage.footprint
        // An owner's identity is its address, which the allocator may give the next owner or not:
        // how many subscriptions of dead owners wait for a sweep at once, and so how many rows the
        // slot table grew to, varies between runs within the sweep's bound (checked below).
        var sameSlotRows = after
        sameSlotRows.slotCapacity = baseline.slotCapacity
        #expect(sameSlotRows == baseline, "nothing grew with the cycles but the slot table's spare rows")
        #expect(after.entries == 0 && after.liveSubscriptions == 0, "every subscription and its owner record is gone")
        #expect(after.lanes == 2 && after.laneBufferCapacity == 0)
        // Kept: the slot table's and owner table's few rows of capacity. The empty buckets keep no
        // chunk, and no event is routed.
        #expect(after.bucketChunkCapacity == 0 && after.routes == 0)
        #expect(after.slotCapacity <= 64 && after.sideTableCapacity <= 64)
    }

    @available(macOS 14, iOS 17, tvOS 17, watchOS 10, *)
    @Test func millionSequenceSubscriptionCyclesLeaveTheFootprintAtItsBaseline() async {
        let (bus, _) = EventBus.makeBus()
        for event in SystemEvent.allCases { _ = bus.stream(event) }
        let baseline = bus.storage.footprint
        await DispatchQueueActor.run("million sequence subscription cycles") { _ in
            for index in 0..<Self.cycles {
                _ = bus.stream(SystemEvent.allCases[index % 10])
            }
        }
        let after = bus.storage.footprint
        #expect(after == baseline, "nothing grew with the cycles")
        #expect(after.entries == 0 && after.liveSubscriptions == 0)
        for event in SystemEvent.allCases { #expect(bus.listenerCount(for: event) == 0) }
        // The empty immediate-lane buckets keep no chunk.
        #expect(after.bucketChunkCapacity == 0 && after.routes == 0)
    }

    actor Listener {}

    @available(macOS 14, iOS 17, tvOS 17, watchOS 10, *)
    @Test func actorsThatComeAndGoReuseOneLane() async {
        let (bus, _) = EventBus.makeBus()
        @Sendable func cycles(_ count: Int) async {
            for index in 0..<count {
                let listener = Listener()
                let token = bus.on(SystemEvent.allCases[index % 10], delivery: .isolated(to: listener)) { _, _ in }
                if index % 2 == 0 { bus.cancelAll(ownedBy: listener) } else { await bus.off(token) }
            }
        }
        await cycles(10)
        let baseline = bus.storage.footprint
        #expect(baseline.lanes == 3 && baseline.vacantLanes == 1, "the main, immediate and one actor lane, now free")
        await DispatchQueueActor.run("100,000 actor-bound subscription cycles") { _ in await cycles(100_000) }
        let after = bus.storage.footprint
        #expect(after == baseline, "every actor reused the one free lane")
        #expect(after.entries == 0 && after.liveSubscriptions == 0)
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
                end: { bus, _, token in token.cancel() }
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
            let stream = bus.stream([.ready, .bucketing, .conversion])
            #expect(bus.listenerCount(for: .bucketing) == 1)
            _ = stream
        }
        #expect(bus.listenerCount(for: .bucketing) == 0)
        #expect(bus.storage.footprint.entries == 0)
        #expect(bus.storage.footprint.liveSubscriptions == 0)
    }
}
