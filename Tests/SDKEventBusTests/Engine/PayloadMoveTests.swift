import Testing

@testable import SDKEventBus
@testable import SDKEventBusConfig
@testable import SDKEventBusCore
@testable import SDKEventBusWire

/// Payloads are moved the way Swift moves them.
///
/// Through the type's own move unless the type is bitwise-takable. A payload holding a `weak` reference is not (on Apple platforms a `weak`
/// reference to an Objective-C object is registered at its address), so a replay store that makes
/// room or lets a payload go must not copy its bytes; delivery buffers grow by segments and never
/// move a payload at all.
///
/// Each test counts the objects its payloads hold: none leaks, none is freed twice, and every
/// reference still reads what it was made with after the payload moved.
@Suite struct PayloadMoveTests {
    /// More fires than a few segments of a lane buffer hold, so that it grows several times.
    static let burst = 300

    /// Records what an actor lane delivers.
    actor Sink {
        private(set) var intact: [Int] = []
        private(set) var broken: [Int] = []

        func record(_ payload: HeavyPayload, weakTarget: Tracked) {
            if payload.isIntact(weakTarget: weakTarget) {
                intact.append(payload.number)
            } else {
                broken.append(payload.number)
            }
        }

        /// Fires `count` payloads while this actor is busy, so that they pile up on its lane.
        func fire(_ count: Int, on emitter: CatalogEmitter<SessionEvent>, tally: Tally, weakTarget: Tracked) {
            for number in 0..<count { emitter.fire(.ping(HeavyPayload(number, tally: tally, weakTarget: weakTarget))) }
        }
    }

    // MARK: The type's own move

    @Test func aPayloadHoldingAWeakReferenceIsNotMovedByCopyingItsBytes() {
        #expect(!PayloadLayout.of(HeavyPayload.self).isBitwiseTakable)
        #expect(PayloadLayout.of(SessionPayload.self).isBitwiseTakable == _isBitwiseTakable(SessionPayload.self))
        #expect(PayloadLayout.of(Int.self).isBitwiseTakable)
        #expect(PayloadLayout.of(String.self).isBitwiseTakable, "most payloads keep the byte-copy fast path")
    }

    /// A layout of `HeavyPayload` that counts the moves made through the type's own move.
    static func countingLayout(_ moves: Counter) -> PayloadLayout {
        let heavy = PayloadLayout.of(HeavyPayload.self)
        return PayloadLayout(
            size: heavy.size,
            stride: heavy.stride,
            alignment: heavy.alignment,
            isTrivial: heavy.isTrivial,
            isBitwiseTakable: heavy.isBitwiseTakable,
            copy: heavy.copy,
            move: { target, source in
                moves.increment()
                heavy.move(target, source)
            },
            destroy: heavy.destroy
        )
    }

    @Test func aGrowingDeliveryBufferNeverMovesAPayload() {
        let tally = Tally()
        let target = Tracked(tally)
        let moves = Counter()
        do {
            let buffer = DeliveryBuffer(layout: Self.countingLayout(moves))
            let bucket = ListenerBucket(number: 0, event: 0, lane: 0)
            let header = DeliveryHeader(bucket: .passUnretained(bucket), mark: 0)
            for number in 0..<Self.burst {
                withUnsafePointer(to: HeavyPayload(number, tally: tally, weakTarget: target)) {
                    buffer.append(header, payload: $0)
                }
            }
            #expect(buffer.capacity >= Self.burst && Self.burst > 2 << buffer.segmentShift, "it grew by segments")
            #expect(moves.count == 0, "growing added segments and moved nothing")
            for index in 0..<Self.burst {
                let payload = buffer.payload(at: index).assumingMemoryBound(to: HeavyPayload.self).pointee
                #expect(payload.number == index && payload.isIntact(weakTarget: target))
            }
            #expect(tally.live == 1 + 2 * Self.burst)
            withExtendedLifetime(bucket) {}
        }
        #expect(tally.live == 1, "every payload destroyed once, none leaked")
    }

    @Test func theReplayStoreMovesPayloadsWithTheirTypesMove() {
        let tally = Tally()
        let target = Tracked(tally)
        let moves = Counter()
        do {
            let layout = Self.countingLayout(moves)
            let store = ReplayStore(layout: layout, eventCount: 2)
            func set(_ event: Int, _ number: Int) -> UnsafeMutableRawPointer? {
                withUnsafePointer(to: HeavyPayload(number, tally: tally, weakTarget: target)) {
                    store.set(event, to: $0)
                }
            }
            func replay(_ event: Int) -> HeavyPayload? {
                store.payload(of: event)?.assumingMemoryBound(to: HeavyPayload.self).pointee
            }
            #expect(set(0, 1) == nil)
            #expect(set(1, 2) == nil)
            #expect(moves.count == 0, "a new payload is copied in")

            let replaced = set(0, 3)
            #expect(moves.count == 1, "the payload it replaces is moved out, to be destroyed after unlocking")
            if let old = replaced?.assumingMemoryBound(to: HeavyPayload.self) {
                #expect(old.pointee.number == 1 && old.pointee.isIntact(weakTarget: target))
            }
            if let replaced {
                layout.destroy(replaced)
                replaced.deallocate()
            }
            #expect(tally.live == 1 + 2 * 2)

            store.addEvent()
            store.addEvent()
            #expect(moves.count == 1 + 2 + 2, "making room for an event moves each retained payload")
            #expect(replay(0)?.number == 3 && replay(0)?.isIntact(weakTarget: target) == true)
            #expect(replay(1)?.number == 2 && replay(1)?.isIntact(weakTarget: target) == true)
            #expect(replay(2) == nil && replay(3) == nil)

            var removed = store.remove(1)
            #expect(moves.count == 6)
            #expect(removed?.count == 1)
            #expect(store.remove(1) == nil)
            removed = nil
            #expect(tally.live == 1 + 2)
            #expect(set(3, 4) == nil)
        }
        #expect(tally.live == 1, "every payload destroyed once, none leaked")
    }

    // MARK: Through the engine

    @Test func payloadsWithReferencesSurviveBufferGrowthOnAnActorLane() async {
        let tally = Tally()
        let target = Tracked(tally)
        let sink = Sink()
        do {
            let (bus, emitter) = CatalogBus<SessionEvent>.makeBus()
            bus.on(.ping, delivery: .isolated(to: sink)) { sink, payload in
                sink.record(payload.heavy, weakTarget: target)
            }
            await sink.fire(Self.burst, on: emitter, tally: tally, weakTarget: target)
            // Not read here: the actor's job may already have taken the batch out of the lane.
            await bus.flush()
            #expect(await sink.intact == Array(0..<Self.burst))
            #expect(await sink.broken.isEmpty)
        }
        #expect(tally.live == 1, "every payload destroyed once, none leaked")
    }

    @MainActor
    @Test func payloadsWithReferencesSurviveBufferGrowthOnTheMainActorLane() async {
        let tally = Tally()
        let target = Tracked(tally)
        let received = Recorder<Bool>()
        do {
            let (bus, emitter) = CatalogBus<SessionEvent>.makeBus()
            bus.on(.ping) { payload in received.append(payload.heavy.isIntact(weakTarget: target)) }
            // The main actor is this test's: every fire waits on the lane until the flush.
            for number in 0..<Self.burst {
                emitter.fire(.ping(HeavyPayload(number, tally: tally, weakTarget: target)))
            }
            #expect(bus.storage.footprint.laneBufferCapacity >= Self.burst, "the main lane's buffer grew")
            await bus.flush()
            #expect(received.items == Array(repeating: true, count: Self.burst))
        }
        #expect(tally.live == 1, "every payload destroyed once, none leaked")
    }

    @Test func replayedPayloadsWithReferencesAreReplacedClearedAndDroppedExactlyOnce() async {
        let tally = Tally()
        let target = Tracked(tally)
        let received = LockedValue<[Int]>([])
        do {
            let (bus, emitter) = CatalogBus<SessionEvent>.makeBus()
            for number in 0..<5 {
                emitter.fire(.userIdentified(HeavyPayload(number, tally: tally, weakTarget: target)))
                emitter.fire(.preferencesChanged(HeavyPayload(number, tally: tally, weakTarget: target)))
            }
            #expect(tally.live == 1 + 2 * 2, "each overwritten replay was destroyed; the latest two are kept")
            _ = bus.on(.userIdentified, delivery: .immediate) { payload in
                if payload.heavy.isIntact(weakTarget: target) { received.withLock { $0.append(payload.heavy.number) } }
            }
            _ = bus.on(.preferencesChanged, delivery: .immediate, replayLatest: true) { payload in
                if payload.heavy.isIntact(weakTarget: target) { received.withLock { $0.append(payload.heavy.number) } }
            }
            #expect(received.withLock { $0 } == [4, 4])
            emitter.clearReplay(of: .userIdentified)
            #expect(tally.live == 1 + 2)
            emitter.shutdown()
            #expect(tally.live == 1, "shutting down destroyed the retained replay")
        }
        #expect(tally.live == 1)
    }
}
