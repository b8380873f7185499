import Testing

@testable import SDKEventBus
@testable import SDKEventBusCore

/// The facts of Swift's layout and calling convention that ``ErasedCallback``'s `unsafeBitCast`
/// relies on, each checked directly, so that a compiler that changed one fails here first.
///
/// 1. A closure stored in a property of a generic type keeps the convention of the property's
///    unsubstituted type: a function of a type parameter takes its argument indirectly, as an
///    address (`@in_guaranteed`), whatever the parameter is bound to, and an address is passed as a
///    pointer is. So a `Holder<Payload>`'s function, called as a function of one pointer with the
///    address of a `Payload`, receives that payload.
/// 2. A function value is the same two words (function and context) whatever its type, so every
///    holder has the layout of an ``ErasedCallback`` (`unsafeBitCast` traps where sizes differ;
///    this pins stride and alignment too).
/// 3. The isolation of a synchronous function (`@MainActor`, an `isolated` parameter) is not part of
///    its convention.
///
/// Each payload shape is erased both from code specialized for it and from unspecialized generic
/// code, since the two build the holder differently (the first through a reabstraction thunk).
/// `Scripts/test-release.sh` runs this suite optimized too.
@Suite struct ErasedCallbackConventionTests {
    struct Empty: Sendable, Equatable {}

    struct Large: Sendable, Equatable {
        var numbers: [Int]
        var a = 1, b = 2, c = 3, d = 4, e = 5, f = 6, g = 7, h = 8
        var label: String
    }

    struct OverAligned: Sendable, Equatable {
        var vector: SIMD4<Double>
        var tag: UInt8
    }

    final class Box: Sendable {
        let value: Int
        init(_ value: Int) { self.value = value }
    }

    enum Mixed: Sendable, Equatable {
        case number(Int)
        case text(String)
        case nothing
    }

    actor Tally {
        var count = 0

        func add(_ amount: Int) { count += amount }
    }

    @Test func everyHolderHasTheLayoutOfAnErasedCallback() {
        func check<Payload>(_: Payload.Type) {
            for layout in [
                (
                    MemoryLayout<ErasedCallback.Holder<Payload>>.size,
                    MemoryLayout<ErasedCallback.Holder<Payload>>.stride,
                    MemoryLayout<ErasedCallback.Holder<Payload>>.alignment
                ),
                (
                    MemoryLayout<ErasedCallback.MainActorHolder<Payload>>.size,
                    MemoryLayout<ErasedCallback.MainActorHolder<Payload>>.stride,
                    MemoryLayout<ErasedCallback.MainActorHolder<Payload>>.alignment
                ),
            ] {
                #expect(layout.0 == MemoryLayout<ErasedCallback>.size, "\(Payload.self)")
                #expect(layout.1 == MemoryLayout<ErasedCallback>.stride, "\(Payload.self)")
                #expect(layout.2 == MemoryLayout<ErasedCallback>.alignment, "\(Payload.self)")
            }
        }
        check(Int.self)
        check(Empty.self)
        check(Large.self)
        check(OverAligned.self)
        check(Box.self)
        check(Mixed.self)
        check((any Sendable).self)
        check((@Sendable () -> Int).self)
        #expect(MemoryLayout<ErasedCallback>.size == 2 * MemoryLayout<UnsafeRawPointer>.size)
        #expect(
            MemoryLayout<ErasedCallback.IsolatedHolder<Tally, Int>>.size
                == MemoryLayout<ErasedCallback.NonisolatedHolder<Tally, Int>>.size)
    }

    @Test func anErasedCallbackCalledWithAPayloadsAddressReceivesThatPayload() {
        Self.roundTrip(42)
        Self.roundTrip(Empty())
        Self.roundTrip(Large(numbers: [1, 2, 3], label: "large"))
        Self.roundTrip(OverAligned(vector: SIMD4(1, 2, 3, 4), tag: 9))
        Self.roundTrip(Mixed.text("text"))
        Self.roundTrip(Mixed.nothing)
        Self.roundTrip(Optional("optional"))
        Self.roundTrip("a string long enough to be stored on the heap, not inline")
        // Specialized: the closure is converted to the holder's convention by a thunk.
        let received = LockedValue<[Int]>([])
        let specialized = ErasedCallback.erasing { (box: Box) in received.withLock { $0.append(box.value) } }
        withUnsafePointer(to: Box(7)) { specialized.function(UnsafeRawPointer($0)) }
        let function = ErasedCallback.erasing { (make: @Sendable () -> Int) in received.withLock { $0.append(make()) } }
        let make: @Sendable () -> Int = { 8 }
        withUnsafePointer(to: make) { function.function(UnsafeRawPointer($0)) }
        let existential = ErasedCallback.erasing { (value: any Sendable) in
            received.withLock { $0.append(value as? Int ?? -1) }
        }
        withUnsafePointer(to: 9 as any Sendable) { existential.function(UnsafeRawPointer($0)) }
        #expect(received.withLock { $0 } == [7, 8, 9])
    }

    @MainActor
    @Test func aMainActorCallbackErasedIsCalledWithItsPayload() {
        var received: [String] = []
        let erased = ErasedCallback.erasing(mainActor: { (payload: String) in received.append(payload) })
        withUnsafePointer(to: "on the main actor") { erased.function(UnsafeRawPointer($0)) }
        #expect(received == ["on the main actor"])
    }

    @Test func anIsolatedCallbackWithoutItsIsolationReceivesItsActorAndValues() async {
        let tally = Tally()
        let one = ErasedCallback.nonisolated { (tally: isolated Tally, amount: Int) in tally.add(amount) }
        let two = ErasedCallback.nonisolated { (tally: isolated Tally, amount: Int, label: String) in
            tally.add(amount + label.count)
        }
        await Self.call(on: tally) { tally in
            one(tally, 2)
            two(tally, 1, "abc")
        }
        #expect(await tally.count == 6)
    }

    /// Runs `body` isolated to `tally`, as the engine runs an isolated callback.
    private static func call(on tally: isolated Tally, _ body: (Tally) -> Void) {
        body(tally)
    }

    /// Erases a callback of `payload`'s type from unspecialized code and from code specialized for
    /// it, calls each with the payload's address, and checks what it received.
    private static func roundTrip<Payload: Equatable & Sendable>(_ payload: Payload) {
        let received = LockedValue<[Payload]>([])
        let generic = unspecializedErasure(Payload.self) { value in received.withLock { $0.append(value) } }
        let inlined = ErasedCallback.erasing { (value: Payload) in received.withLock { $0.append(value) } }
        withUnsafePointer(to: payload) { pointer in
            generic.function(UnsafeRawPointer(pointer))
            inlined.function(UnsafeRawPointer(pointer))
        }
        #expect(received.withLock { $0 } == [payload, payload], "\(Payload.self)")
    }

    @inline(never) @_optimize(none)
    private static func unspecializedErasure<Payload>(
        _: Payload.Type, _ callback: @escaping @Sendable (Payload) -> Void
    ) -> ErasedCallback {
        .erasing(callback)
    }
}
