/// A listener's callback with its payload type and isolation erased, so that one engine keeps the
/// callbacks of every catalog and every delivery lane in one entry layout.
///
/// It is the closure the subscriber passed, unchanged: no wrapper, no allocation. The engine calls
/// it with the address of a payload, on the executor its subscription asked for.
package struct ErasedCallback: @unchecked Sendable {
    // @unchecked: `function` is a `@Sendable` closure; the struct only hides its parameter type.

    /// A function of the address of one payload.
    package typealias Function = @Sendable (UnsafeRawPointer) -> Void

    package let function: Function

    /// Erases a callback of `Payload`.
    ///
    /// Sound because of two facts of Swift's calling convention. A closure stored in a property of
    /// a generic type keeps the convention of the property's unsubstituted type, whatever `Payload`
    /// is: a function of a type parameter takes its argument indirectly, as the address of the value
    /// (`@in_guaranteed`), which is exactly the convention of a function of one pointer. (So the
    /// closure is moved through ``Holder``; bit-casting the function value itself would not work,
    /// because a generic cast re-abstracts it through thunks.) And the isolation of a synchronous
    /// function (`@MainActor`, an actor's) is not part of its calling convention — the standard
    /// library's `MainActor.assumeIsolated` relies on the same fact. So the engine may call the
    /// erased function with the address of a `Payload`, on the executor its subscription asked for,
    /// and never calls it anywhere else. `ErasedCallbackConventionTests` checks each of these facts
    /// directly (every holder's layout, a call with a payload's address from specialized and
    /// unspecialized code, a main-actor and an isolated callback), and `ErasedCallbackTests`
    /// exercises payloads of every layout through the bus, in debug and release builds.
    ///
    /// Not replaced by a wrapping closure (`{ callback($0.load(as: Payload.self)) }`): that costs an
    /// allocation per subscription, an indirect call per delivery, and a copy (retains and
    /// releases) of every payload per callback, on a loop of about 16 ns per callback.
    @inlinable @inline(__always)
    package static func erasing<Payload>(_ callback: @escaping @Sendable (Payload) -> Void) -> ErasedCallback {
        unsafeBitCast(Holder(function: callback), to: ErasedCallback.self)
    }

    /// Erases a main-actor callback; the engine calls it only on the main actor.
    @inlinable @inline(__always)
    package static func erasing<Payload>(mainActor callback: @escaping @MainActor @Sendable (Payload) -> Void)
        -> ErasedCallback
    {
        unsafeBitCast(MainActorHolder(function: callback), to: ErasedCallback.self)
    }

    /// Erases a callback isolated to `actor`, which it captures weakly: the one rule of every bus
    /// for a subscription's actor.
    ///
    /// The engine calls it only in a job on the actor's lane, which holds the actor; the weak
    /// capture keeps it safe without relying on that. The bus never keeps the actor alive, and once
    /// the actor is gone, a call reaching the callback calls nothing and runs `end`, which ends the
    /// subscription.
    ///
    /// - Parameters:
    ///   - actor: The actor the callback is isolated to.
    ///   - call: The callback with its isolation removed (see `nonisolated(_:)`); called only
    ///     while isolated to `actor`.
    ///   - end: Ends the subscription.
    /// - Returns: The erased callback.
    @inlinable @inline(__always)
    package static func erasing<A: Actor, Payload>(
        isolatedTo actor: A,
        _ call: @escaping @Sendable (A, Payload, _ end: @escaping @Sendable () -> Void) -> Void,
        end: @escaping @Sendable () -> Void
    ) -> ErasedCallback {
        .erasing { [weak actor] (payload: Payload) in
            guard let actor else { return end() }
            call(actor, payload, end)
        }
    }

    /// What a released entry holds: captures nothing, so it retains nothing.
    ///
    /// Computed: a closure that captures nothing is a constant, and a stored static would be a
    /// lazily initialized global, checked on every `off`.
    static var released: ErasedCallback { ErasedCallback(function: { _ in }) }

    // The holders and the erasing functions are `package`, members of this `package` type: the
    // modules of the package inline them (the app buses subscribe through them), and no
    // .swiftinterface a binary SDK's client reads shows them (see Docs/ABI.md).

    /// A callback of `Payload` in the one-pointer convention: the layout of an ``ErasedCallback``.
    package struct Holder<Payload> {
        package let function: @Sendable (Payload) -> Void

        package init(function: @escaping @Sendable (Payload) -> Void) { self.function = function }
    }

    /// A main-actor callback of `Payload` in the one-pointer convention.
    package struct MainActorHolder<Payload> {
        package let function: @MainActor @Sendable (Payload) -> Void

        package init(function: @escaping @MainActor @Sendable (Payload) -> Void) { self.function = function }
    }
}

extension ErasedCallback {
    /// Removes the isolation from an actor-isolated callback, for a caller that calls it only while
    /// isolated to that actor.
    ///
    /// An `isolated` parameter is an ordinary parameter in the calling convention; only the compiler's
    /// checking treats it specially. Both holders are generic over the same parameters, so their
    /// closures have the same convention.
    @inlinable @inline(__always)
    package static func nonisolated<A: Actor, Value>(
        _ callback: @escaping @Sendable (isolated A, Value) -> Void
    ) -> @Sendable (A, Value) -> Void {
        unsafeBitCast(IsolatedHolder(function: callback), to: NonisolatedHolder<A, Value>.self).function
    }

    /// Removes the isolation from an actor-isolated callback of two values; see
    /// ``nonisolated(_:)-(@Sendable(isolated A,Value)->Void)``.
    @inlinable @inline(__always)
    package static func nonisolated<A: Actor, Value, Extra>(
        _ callback: @escaping @Sendable (isolated A, Value, Extra) -> Void
    ) -> @Sendable (A, Value, Extra) -> Void {
        unsafeBitCast(IsolatedHolder2(function: callback), to: NonisolatedHolder2<A, Value, Extra>.self).function
    }

    /// An actor-isolated callback of one value.
    package struct IsolatedHolder<A: Actor, Value> {
        package let function: @Sendable (isolated A, Value) -> Void

        package init(function: @escaping @Sendable (isolated A, Value) -> Void) { self.function = function }
    }

    /// The same callback without its isolation.
    package struct NonisolatedHolder<A: Actor, Value> {
        package let function: @Sendable (A, Value) -> Void

        package init(function: @escaping @Sendable (A, Value) -> Void) { self.function = function }
    }

    /// An actor-isolated callback of two values.
    package struct IsolatedHolder2<A: Actor, Value, Extra> {
        package let function: @Sendable (isolated A, Value, Extra) -> Void

        package init(function: @escaping @Sendable (isolated A, Value, Extra) -> Void) { self.function = function }
    }

    /// The same callback without its isolation.
    package struct NonisolatedHolder2<A: Actor, Value, Extra> {
        package let function: @Sendable (A, Value, Extra) -> Void

        package init(function: @escaping @Sendable (A, Value, Extra) -> Void) { self.function = function }
    }
}
