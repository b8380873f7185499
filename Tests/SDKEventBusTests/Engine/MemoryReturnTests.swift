import Testing

@testable import SDKEventBus
@testable import SDKEventBusConfig
@testable import SDKEventBusCore
@testable import SDKEventBusWire

/// Memory returns after a burst (issue 23): once what was queued is delivered, a lane's buffers are
/// back to at most a segment each; once a bucket has no entry left, it holds no chunk; and once no
/// listener of an event is left in a lane, fires of that event no longer visit the lane.
///
/// Everything is read through ``BusStorage/footprint`` after `flush`, which returns only once the
/// pass has emptied its batch.
@Suite struct MemoryReturnTests {
    /// The deliveries one lane-buffer segment holds, for the bus's payloads.
    static func segmentEntries(_ storage: BusStorage) -> Int {
        1 << DeliveryBuffer(layout: storage.state.withLock { $0.layout }).segmentShift
    }

    actor Listener {}

    /// A listener that says when it is deallocated.
    actor DepartingListener {
        let departures: Departures

        init(_ departures: Departures) { self.departures = departures }

        deinit { departures.depart() }
    }

    /// Counts deallocated listeners, and lets a test await a number of them.
    final class Departures: Sendable {
        private let state = LockedValue<(count: Int, target: Int, waiter: CheckedContinuation<Void, Never>?)>(
            (0, .max, nil))

        func depart() {
            let waiter = state.withLock { state -> CheckedContinuation<Void, Never>? in
                state.count += 1
                guard state.count >= state.target else { return nil }
                defer { state.waiter = nil }
                return state.waiter
            }
            waiter?.resume()
        }

        /// Returns once `count` listeners are deallocated.
        func wait(for count: Int) async {
            await withCheckedContinuation { (continuation: CheckedContinuation<Void, Never>) in
                let now = state.withLock { state -> Bool in
                    guard state.count < count else { return true }
                    state.target = count
                    state.waiter = continuation
                    return false
                }
                if now { continuation.resume() }
            }
        }
    }

    // MARK: Lane buffers

    @MainActor
    @Test func laneBuffersShrinkBackOnceABurstIsDelivered() async {
        let (bus, emitter) = EventBus.makeBus()
        let received = Counter()
        for _ in 0..<3 { bus.on(.apiQueueReleased) { _ in received.increment() } }
        let segment = Self.segmentEntries(bus.storage)
        #expect(bus.storage.footprint.laneBufferCapacity == 0)
        // The main actor is this test's: every fire waits on the main lane until the flush.
        for number in 0..<5_000 { emitter.fire(SamplePayloads.numbered(number)) }
        #expect(bus.storage.footprint.laneBufferCapacity >= 5_000, "the whole burst is queued")
        await bus.flush()
        #expect(received.count == 3 * 5_000)
        #expect(bus.storage.footprint.laneBufferCapacity == segment, "one segment is kept for the next fires")
    }

    @MainActor
    @Test func laneBuffersShrinkBackAfterABurstDeliveredOverManyJobsWhileFiresKeepComing() async {
        let (bus, emitter) = EventBus.makeBus()
        bus.storage.limitJobs(toCallbacks: 100)  // passes hold their batch between jobs
        let received = Counter()
        for _ in 0..<3 { bus.on(.apiQueueReleased) { _ in received.increment() } }
        let segment = Self.segmentEntries(bus.storage)
        await Task.detached { for number in 0..<20_000 { emitter.fire(SamplePayloads.numbered(number)) } }.value
        await bus.flush()
        #expect(received.count == 3 * 20_000)
        // Either buffer may have been the pending one last: each keeps at most a segment.
        #expect(bus.storage.footprint.laneBufferCapacity <= 2 * segment)
    }

    @Test func anActorLanesBuffersShrinkBackOnceItsBurstIsDelivered() async {
        actor Held {
            func fire(_ count: Int, on emitter: EventEmitter) {
                for number in 0..<count { emitter.fire(SamplePayloads.numbered(number)) }
            }
        }
        let (bus, emitter) = EventBus.makeBus()
        let held = Held()
        let received = Counter()
        _ = bus.on(.apiQueueReleased, delivery: .isolated(to: held)) { _, _ in received.increment() }
        await held.fire(3_000, on: emitter)  // the actor is busy: all 3,000 wait on its lane, one batch
        await bus.flush()
        #expect(received.count == 3_000)
        #expect(bus.storage.footprint.laneBufferCapacity == Self.segmentEntries(bus.storage))
    }

    // MARK: Actor lanes

    /// Actors that come and go (one per connection or per screen): once 1,000 of them were
    /// subscribed at once, fired to, cancelled and released, the bus keeps what it kept before
    /// them, plus at most ``BusStorage/State/maximumVacantLanes`` lanes for the next actors.
    ///
    /// Released, an actor's lane is freed by the first fire that finds the actor gone. A delivery
    /// job on the actor holds it while it runs, a moment past the `flush` its end resumes: a fire
    /// in that moment still reaches the actor, alive, and its lane waits for a later fire. So the
    /// test waits until the actors are gone before it fires (under the thread sanitizer, once in
    /// a full serial run, a job still held one).
    @Test(arguments: ["cancelled", "released"])
    func actorLanesGiveTheirMemoryBackOnceTheirActorsAreGone(ending: String) async {
        let (bus, emitter) = EventBus.makeBus()
        let received = Counter()
        bus.on(.apiQueueReleased) { _ in received.increment() }
        emitter.fire(SamplePayloads.numbered(0))
        await bus.flush()
        let baseline = bus.storage.footprint
        let departures = Departures()
        var listeners = (0..<1_000).map { _ in DepartingListener(departures) }
        for listener in listeners {
            bus.on(.apiQueueReleased, delivery: .isolated(to: listener)) { _, _ in received.increment() }
        }
        emitter.fire(SamplePayloads.numbered(1))
        await bus.flush()
        #expect(received.count == 1 + 1_001)
        let peak = bus.storage.footprint
        #expect(peak.lanes == 2 + 1_000 && peak.laneBufferCapacity > 1_000 * Self.segmentEntries(bus.storage))
        if ending == "cancelled" {
            for listener in listeners { bus.cancelAll(ownedBy: listener) }
            listeners.removeAll()
        } else {
            listeners.removeAll()
            await departures.wait(for: 1_000)
            // A fire finds every lane's actor gone and frees the lane.
            emitter.fire(SamplePayloads.numbered(2))
            await bus.flush()
        }
        let after = bus.storage.footprint
        let kept = BusStorage.State.maximumVacantLanes
        #expect(after.liveSubscriptions == baseline.liveSubscriptions)
        #expect(
            after.laneBufferCapacity <= 2 * Self.segmentEntries(bus.storage),
            "a vacant lane keeps no buffer: only the main lane's two keep a segment each")
        #expect(after.lanes <= baseline.lanes + kept, "at most \(kept) vacant lanes are kept")
        #expect(after.vacantLanes <= kept)
        #expect(after.buckets <= baseline.buckets, "a vacant lane keeps no bucket")
        #expect(after.bucketChunkCapacity == baseline.bucketChunkCapacity)
        #expect(after.routes == baseline.routes)
    }

    @Test func aLaneFreedBeyondTheVacantOnesKeptServesTheNextActorsAsBefore() async {
        let (bus, emitter) = EventBus.makeBus()
        for round in 0..<3 {
            let listeners = (0..<50).map { _ in Listener() }
            let received = Counter()
            for listener in listeners {
                bus.on(.apiQueueReleased, delivery: .isolated(to: listener)) { _, _ in received.increment() }
            }
            emitter.fire(SamplePayloads.numbered(round))
            await bus.flush()
            #expect(received.count == 50, "round \(round)")
            for listener in listeners.reversed() { bus.cancelAll(ownedBy: listener) }
            emitter.fire(SamplePayloads.numbered(round))
            await bus.flush()
            #expect(received.count == 50)
        }
        #expect(bus.storage.footprint.lanes <= 2 + BusStorage.State.maximumVacantLanes)
    }

    /// Actors subscribing, cancelled or released while other threads fire.
    ///
    /// Lanes are vacated, reused and removed from the end of the table under load, and every
    /// callback runs on a live lane. Bounded: 4 workers × 150 actors, 2,000 fires.
    @Test func actorsComingAndGoingWhileOtherThreadsFireLeaveOnlyTheLanesKeptForReuse() async {
        let (bus, emitter) = EventBus.makeBus()
        let received = Counter()
        await withTaskGroup(of: Void.self) { group in
            group.addTask {
                for number in 0..<2_000 { emitter.fire(SamplePayloads.numbered(number)) }
            }
            for worker in 0..<4 {
                group.addTask {
                    var kept: [Listener] = []
                    for round in 0..<150 {
                        let listener = Listener()
                        bus.on(.apiQueueReleased, delivery: .isolated(to: listener)) { _, _ in received.increment() }
                        if round % 3 == worker % 3 { bus.cancelAll(ownedBy: listener) }
                        if round % 5 == 0 { kept.append(listener) }
                        if kept.count > 4 { kept.removeFirst() }
                        emitter.fire(SamplePayloads.numbered(round))
                    }
                    for listener in kept { bus.cancelAll(ownedBy: listener) }
                }
            }
        }
        await bus.flush()
        // The last fire finds the lanes of released actors and frees them.
        emitter.fire(SamplePayloads.numbered(0))
        await bus.flush()
        let after = bus.storage.footprint
        #expect(after.liveSubscriptions == 0)
        #expect(after.lanes <= 2 + BusStorage.State.maximumVacantLanes)
        #expect(after.laneBufferCapacity <= 2 * Self.segmentEntries(bus.storage))
        #expect(after.buckets <= 1 + BusStorage.State.maximumVacantLanes)
    }

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
