import Testing

@testable import SDKEventBus
@testable import SDKEventBusConfig
@testable import SDKEventBusCore
@testable import SDKEventBusWire

/// What a fire and a shutdown do with work nobody will deliver: the lane of an actor that is gone,
/// and fires a shutdown drops while a pass holds or runs its batch.
@Suite struct DroppedAndAbandonedTests {
    actor Listener {}

    @Test func aFireWhoseFirstRouteIsTheLaneOfAGoneActorStillReachesTheOtherLanes() async {
        let (bus, emitter) = EventBus.makeBus()
        var listener: Listener? = Listener()
        bus.on(.bucketing, delivery: .isolated(to: listener!)) { _, _ in }  // the first route
        let received = Counter()
        bus.on(.bucketing, delivery: .immediate) { _ in received.increment() }
        let alsoReceived = Counter()
        let other = Listener()
        bus.on(.bucketing, delivery: .isolated(to: other)) { _, _ in alsoReceived.increment() }
        listener = nil  // its subscription is live until something notices the actor is gone
        emitter.fire(SamplePayloads.sample(.bucketing))
        await bus.flush()
        #expect(received.count == 1)
        #expect(alsoReceived.count == 1, "the route after the abandoned one is not skipped")
        #expect(bus.listenerCount(for: .bucketing) == 2, "the gone actor's subscription ended")
    }

    @MainActor
    @Test func aShutdownWhileABatchIsHeldBetweenJobsDestroysThePayloadsQueuedBehindIt() async {
        let live = LockedValue(0)
        let storage = BusStorage(
            layout: .of(CountedPayload.self), replayRules: [.none], diagnostics: nil, eventName: { "event \($0)" })
        storage.limitJobs(toCallbacks: 1)
        let calls = LockedValue(0)
        _ = storage.subscribe(event: 0, lane: .mainActor) { _ in
            .erasing(mainActor: { (_: CountedPayload) in
                guard Self.isFirst(calls) else { return }
                // Queued behind the batch being delivered; the shutdown runs between two jobs.
                for _ in 0..<5 { Self.fire(CountedPayload(counting: live), on: storage) }
                Task { @MainActor in storage.shutDown() }
            })
        }
        for _ in 0..<10 { Self.fire(CountedPayload(counting: live), on: storage) }
        await storage.flush()
        #expect(calls.withLock { $0 } == 1)
        #expect(live.withLock { $0 } == 0, "every dropped fire's payload is destroyed")
        withExtendedLifetime(storage) {}
    }

    @MainActor
    @Test func payloadsAShutdownDropsDuringAPassAreDestroyedOutsideTheBusLock() async {
        let live = LockedValue(0)
        let storage = BusStorage(
            layout: .of(CountedPayload.self), replayRules: [.none], diagnostics: nil, eventName: { "event \($0)" })
        let calls = LockedValue(0)
        _ = storage.subscribe(event: 0, lane: .mainActor) { _ in
            .erasing(mainActor: { (_: CountedPayload) in
                guard Self.isFirst(calls) else { return }
                // Each payload's deinit takes the bus's lock: under it, a debug build traps
                // (the lock is error-checking) and a release build deadlocks.
                for _ in 0..<3 {
                    let payload = CountedPayload(counting: live) { _ = storage.state.withLock { $0.lanes.count } }
                    Self.fire(payload, on: storage)
                }
                storage.shutDown()
            })
        }
        Self.fire(CountedPayload(counting: live), on: storage)
        await storage.flush()
        #expect(calls.withLock { $0 } == 1)
        #expect(live.withLock { $0 } == 0)
        withExtendedLifetime(storage) {}
    }

    /// Counts a call, and says whether it is the first.
    private static func isFirst(_ calls: LockedValue<Int>) -> Bool {
        calls.withLock { calls in
            calls += 1
            return calls == 1
        }
    }

    private static func fire(_ payload: CountedPayload, on storage: BusStorage) {
        withExtendedLifetime(payload) { withUnsafePointer(to: payload) { storage.fire(event: 0, payload: $0) } }
    }
}

/// A payload that counts the live ones, and runs `onDeinit` as it goes.
private final class CountedPayload: Sendable {
    private let live: LockedValue<Int>
    private let onDeinit: @Sendable () -> Void

    init(counting live: LockedValue<Int>, onDeinit: @escaping @Sendable () -> Void = {}) {
        self.live = live
        self.onDeinit = onDeinit
        live.withLock { $0 += 1 }
    }

    deinit {
        onDeinit()
        live.withLock { $0 -= 1 }
    }
}
