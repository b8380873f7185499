/// Where a subscription's callback runs: the main actor, the firing thread, or an actor.
///
/// Every bus takes it as the `delivery` parameter of `on` and `once`, and the callback's shape
/// follows it:
///
/// | delivery | the callback runs | callback |
/// | --- | --- | --- |
/// | ``mainActor`` (the default) | on the main actor, in jobs of at most about 2 ms of callbacks | `@MainActor (Payload) -> Void` |
/// | ``immediate`` | on the firing thread, before `fire` returns | `(Payload) -> Void` |
/// | ``isolated(to:)`` | isolated to the actor, in jobs on it of at most about 2 ms of callbacks | `(isolated A, Payload) -> Void` |
///
/// ```swift
/// bus.on(.configUpdated) { payload in render(payload) }                            // main actor
/// bus.on(.configUpdated, delivery: .immediate) { payload in cache.apply(payload) }
/// bus.on(.configUpdated, delivery: .isolated(to: store)) { store, payload in store.apply(payload) }
/// ```
///
/// The guarantees of a bus hold within each context; contexts do not wait for each other.
///
/// Immediate callbacks of one bus run one at a time, in fire order. Exactly what a firing thread
/// runs:
///
/// - every immediate listener of its own fire, before `fire` returns, however long they take;
/// - then the fires other threads (or its own callbacks) made on the bus meanwhile, for at most
///   about 2 ms of callbacks; a job on the global executor delivers whatever is left, in the same
///   order, in jobs of the same size.
///
/// A fire made while another thread (or that job) is delivering on the immediate lane returns at
/// once, and is delivered next by whoever delivers. A fire made inside an immediate callback is
/// delivered once the fire being delivered has reached all its immediate listeners. Keep
/// immediate callbacks short, and never block in them on work that fires on the same bus.
///
/// An actor's subscriptions are bound to its lifetime: the bus holds it weakly, and they end when
/// it is deallocated (or with `cancelAll(ownedBy:)`).
public struct Delivery<Context>: Sendable {
    package let lane: LaneSelector
}

extension Delivery where Context == MainActor {
    /// On the main actor, the default: many fires share a main-actor job, and a job yields the main
    /// actor after about 2 ms of callbacks.
    ///
    /// The callbacks run only while the main thread serves the main actor, as an app's always does.
    /// On Linux, run an async `main`, `dispatchMain()` or `RunLoop.main.run()`; otherwise use
    /// ``immediate`` or ``isolated(to:)``.
    public static var mainActor: Delivery<MainActor> { Delivery(lane: .mainActor) }
}

/// The context of ``Delivery/immediate``: the thread that fires, with no actor.
///
/// It names the callbacks' context in signatures (`Delivery<FiringThread>`); it has no values.
public enum FiringThread {}

extension Delivery where Context == FiringThread {
    /// On the firing thread, before `fire` returns.
    ///
    /// For an SDK's own components that must observe events synchronously. The callback is isolated
    /// to no actor.
    public static var immediate: Delivery<FiringThread> { Delivery(lane: .immediate) }
}

extension Delivery where Context: Actor {
    /// Isolated to `actor`, which the callback receives: it reads and changes the actor's state
    /// synchronously, in jobs on the actor of at most about 2 ms of callbacks each, never through the
    /// main actor.
    ///
    /// - Parameter actor: The actor; the bus holds it weakly and ends its subscriptions when it is
    ///   deallocated.
    /// - Returns: The delivery.
    public static func isolated(to actor: Context) -> Delivery<Context> { Delivery(lane: .actor(actor)) }
}
