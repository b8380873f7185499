import Testing

@testable import SDKEventBus
@testable import SDKEventBusConfig
@testable import SDKEventBusCore
@testable import SDKEventBusWire

/// Payloads of every layout go through the erased engine intact.
///
/// The engine stores callbacks erased to a function of a payload's address and moves payloads as
/// raw memory through a ``PayloadLayout``. Payloads of every layout go through it intact: empty,
/// over-aligned, large, existential, a class, a `weak` reference, a multi-payload enum; through fire
/// → delivery in every delivery context (the main actor, an actor, immediate) and through replay.
///
/// Each shape is fired more times than a lane's first buffer holds, from the main actor while it is
/// held, so the main lane's buffer grows with the payloads in it.
@Suite struct ErasedCallbackTests {
    // MARK: The shapes

    struct Empty: Sendable, Equatable {}

    /// Alignment 16 (more than the delivery header's 8), and a size that is not a multiple of it.
    struct OverAligned: Sendable, Equatable {
        var vector: SIMD4<Float>
        var tag: UInt8
    }

    /// More than 64 bytes, and not trivial.
    struct Large: Sendable, Equatable {
        var numbers: (Int, Int, Int, Int, Int, Int, Int, Int, Int, Int)
        var label: String

        init(_ number: Int) {
            numbers = (
                number, number + 1, number + 2, number + 3, number + 4, number + 5, number + 6, number + 7,
                number + 8, number + 9
            )
            label = "large \(number)"
        }

        static func == (lhs: Large, rhs: Large) -> Bool {
            lhs.label == rhs.label && lhs.numbers.0 == rhs.numbers.0 && lhs.numbers.9 == rhs.numbers.9
        }
    }

    enum Mixed: Sendable, Equatable {
        case number(Int)
        case text(String)
        case nothing
    }

    /// Whether two existentials hold equal values: an existential's own description.
    static func same(_ lhs: any Sendable & CustomStringConvertible, _ rhs: any Sendable & CustomStringConvertible)
        -> Bool
    {
        lhs.description == rhs.description
    }

    // MARK: The round trip

    actor Sink {}

    /// Whether `values` go through every delivery context and replay intact.
    ///
    /// Fires `values` from the main actor while it is held, to listeners in every context subscribed
    /// before, then subscribes one late listener per context: each must receive every value in
    /// order, and the late ones the last value, by replay.
    @MainActor
    static func roundTrip<Payload: Sendable>(
        _ values: [Payload],
        equal: @escaping @Sendable (Payload, Payload) -> Bool
    ) async -> Bool {
        let storage = BusStorage(
            layout: .of(Payload.self), replayRules: [.sticky], diagnostics: nil, eventName: { "event \($0)" })
        let sink = Sink()
        let received = LockedValue<[String: [Payload]]>([:])
        func record(_ context: String) -> @Sendable (Payload) -> Void {
            { payload in received.withLock { $0[context, default: []].append(payload) } }
        }
        let main = record("main")
        let immediate = record("immediate")
        let actor = record("actor")
        _ = storage.subscribe(event: 0, lane: .mainActor) { _ in .erasing(mainActor: { main($0) }) }
        _ = storage.subscribe(event: 0, lane: .immediate) { _ in .erasing(immediate) }
        _ = storage.subscribe(event: 0, lane: .actor(sink)) { _ in .erasing(actor) }
        for value in values { withUnsafePointer(to: value) { storage.fire(event: 0, payload: $0) } }
        await storage.flush()

        let lateMain = record("late main")
        let lateImmediate = record("late immediate")
        let lateActor = record("late actor")
        _ = storage.subscribe(event: 0, lane: .mainActor) { _ in .erasing(mainActor: { lateMain($0) }) }
        _ = storage.subscribe(event: 0, lane: .immediate) { _ in .erasing(lateImmediate) }
        _ = storage.subscribe(event: 0, lane: .actor(sink)) { _ in .erasing(lateActor) }
        await storage.flush()
        storage.shutDown()
        withExtendedLifetime(sink) {}

        let all = received.withLock { $0 }
        var intact = true
        for context in ["main", "immediate", "actor"] {
            let got = all[context] ?? []
            let inOrder = got.count == values.count && zip(got, values).allSatisfy(equal)
            #expect(inOrder, "\(Payload.self) through the \(context) context")
            let late = all["late \(context)"] ?? []
            let replayed = late.count == 1 && equal(late[0], values[values.count - 1])
            #expect(replayed, "\(Payload.self) replayed in the \(context) context")
            intact = intact && inOrder && replayed
        }
        return intact
    }

    static let count = 40

    @Test func emptyPayloads() async {
        #expect(MemoryLayout<Empty>.size == 0)
        #expect(await Self.roundTrip(Array(repeating: Empty(), count: Self.count), equal: ==))
    }

    @Test func overAlignedPayloads() async {
        #expect(MemoryLayout<OverAligned>.alignment == 16)
        let values = (0..<Self.count).map { OverAligned(vector: SIMD4(Float($0), 1, 2, 3), tag: UInt8($0)) }
        #expect(await Self.roundTrip(values, equal: ==))
    }

    @Test func largePayloads() async {
        #expect(MemoryLayout<Large>.size > 64)
        #expect(await Self.roundTrip((0..<Self.count).map(Large.init), equal: ==))
    }

    @Test func existentialPayloads() async {
        // Small values sit inline in the existential's buffer; a large one is boxed.
        let values: [any Sendable & CustomStringConvertible] = (0..<Self.count).map { number in
            switch number % 3 {
            case 0: number
            case 1: "text \(number)"
            default: "\(Large(number).label) \(Large(number).numbers)"
            }
        }
        #expect(await Self.roundTrip(values, equal: Self.same))
    }

    @Test func classPayloadsAreDeliveredAndReleased() async {
        let tally = Tally()
        let values = (0..<Self.count).map { Tracked(tally, number: $0) }
        #expect(await Self.roundTrip(values, equal: ===))
        #expect(tally.live == Self.count)
        _ = consume values
        #expect(tally.live == 0, "the bus kept no reference")
    }

    @Test func weakReferencePayloadsAreDeliveredAndReleased() async {
        struct Weak: Sendable {
            weak var target: Tracked?
            let number: Int
        }
        let tally = Tally()
        let targets = (0..<Self.count).map { Tracked(tally, number: $0) }
        let values = targets.map { Weak(target: $0, number: $0.number) }
        #expect(await Self.roundTrip(values) { $0.target === $1.target && $0.number == $1.number })
        _ = consume targets
        #expect(tally.live == 0)
    }

    @Test func heavyPayloadsAreDeliveredAndReleased() async {
        let tally = Tally()
        let target = Tracked(tally)
        do {
            let values = (0..<Self.count).map { HeavyPayload($0, tally: tally, weakTarget: target) }
            #expect(await Self.roundTrip(values) { $0.number == $1.number && $0.isIntact(weakTarget: target) })
        }
        #expect(tally.live == 1, "every payload destroyed once, none leaked")
    }

    @Test func multiPayloadEnumPayloads() async {
        let values: [Mixed] = (0..<Self.count).map { [.number($0), .text("t\($0)"), .nothing][$0 % 3] }
        #expect(await Self.roundTrip(values, equal: ==))
    }
}
