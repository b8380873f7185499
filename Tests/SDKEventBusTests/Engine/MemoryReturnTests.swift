import Testing

@testable import SDKEventBus
@testable import SDKEventBusCore

/// Memory returns once listeners are gone (issue 23): once a bucket has no entry left, it holds no
/// chunk; and once no listener of an event is left in a lane, fires of that event no longer visit
/// the lane.
///
/// Everything is read through ``BusStorage/footprint`` once `off` or `flush` has returned.
@Suite struct MemoryReturnTests {
    actor Listener {}

    // MARK: Buckets

    @Test(arguments: ["oldest first", "newest first", "alternately"])
    func aBucketEmptiedToZeroReleasesItsChunks(order: String) async {
        let (bus, _) = EventBus.makeBus()
        let baseline = bus.storage.footprint
        var tokens = (0..<100).map { _ in bus.on(.bucketing) { _ in } }
        #expect(bus.storage.footprint.bucketChunkCapacity >= 100)
        switch order {
        case "newest first": tokens.reverse()
        case "alternately":
            tokens =
                tokens.indices.filter { $0 % 2 == 0 }.map { tokens[$0] }
                + tokens.indices.filter { $0 % 2 == 1 }.map { tokens[$0] }
        default: break
        }
        for token in tokens { await bus.off(token) }
        let after = bus.storage.footprint
        #expect(after.bucketChunkCapacity == 0)
        #expect(after.entries == 0 && after.liveSubscriptions == 0)
        #expect(after.buckets == 1, "the bucket stays, empty, for the next subscriptions")
        #expect(after.routes == baseline.routes)
    }

    @MainActor
    @Test func aBucketEmptiedDuringItsPassReleasesItsChunksWhenThePassEnds() async {
        let (bus, emitter) = EventBus.makeBus()
        let received = Counter()
        for _ in 0..<20 { bus.once(.apiQueueReleased) { _ in received.increment() } }
        emitter.fire(SamplePayloads.numbered(1))
        await bus.flush()
        #expect(received.count == 20)
        #expect(bus.storage.footprint.bucketChunkCapacity == 0)
        #expect(bus.storage.footprint.entries == 0)
    }

    // MARK: Routes

    @Test func eventsWithoutListenersInALaneAreNotRoutedToItOnFire() async {
        let (bus, emitter) = EventBus.makeBus()
        let listener = Listener()
        let immediateCalls = Counter()
        let onMain = bus.on(.bucketing) { _ in }
        let immediate = bus.on(.bucketing, delivery: .immediate) { _ in immediateCalls.increment() }
        let onActor = bus.on(.bucketing, delivery: .isolated(to: listener)) { _, _ in }
        let event = bus.index.position(of: .bucketing)
        func routedLanes() -> [Int] { bus.storage.state.withLock { $0.registry.routes[event].map(\.lane).sorted() } }
        func enqueued() -> [UInt64] { bus.storage.state.withLock { $0.lanes.map(\.enqueuedCount) } }
        #expect(routedLanes().count == 3)

        await bus.off(onMain)
        await bus.off(onActor)
        #expect(routedLanes() == [BusStorage.immediateLane], "only the lane that still listens")
        let before = enqueued()
        emitter.fire(SamplePayloads.sample(.bucketing))
        #expect(immediateCalls.count == 1)
        let after = enqueued()
        #expect(after[BusStorage.mainLane] == before[BusStorage.mainLane])
        #expect(after[2...] == before[2...], "nothing queued for the actor lane")

        await bus.off(immediate)
        #expect(routedLanes().isEmpty)
        #expect(bus.storage.footprint.routes == 0)

        // A new listener brings its lane's route back.
        let again = Counter()
        bus.on(.bucketing, delivery: .immediate) { _ in again.increment() }
        #expect(routedLanes() == [BusStorage.immediateLane])
        emitter.fire(SamplePayloads.sample(.bucketing))
        #expect(again.count == 1 && immediateCalls.count == 1)
    }
}
