/// An SDK's event bus for one catalogue of events: app code subscribes with `on` and unsubscribes
/// with ``off(_:)``; the SDK fires through the ``CatalogueEmitter`` that ``makeBus(diagnostics:)``
/// returns with it.
///
/// Every listener receives events in the order they were fired; within one fire, the listeners of
/// one delivery context are called in the order they subscribed; a listener receives exactly the
/// events fired while it was subscribed, each once. After ``off(_:)`` returns (unless its task was
/// cancelled), its callback never runs again, not even for events already fired, and the bus no
/// longer retains it.
///
/// Each subscription says where its callback runs:
///
/// | context | subscribe with | callback runs |
/// | --- | --- | --- |
/// | main actor (default) | `on(event) { … }` | on the main actor, one job per batch of fires |
/// | an actor | `on(event, isolation: actor) { actor, payload in … }` | isolated to that actor |
/// | immediate | `on(event, delivery: .immediate) { … }` | on the firing thread, before `fire` returns |
///
/// ```swift
/// let (bus, emitter) = CatalogueBus<FlagEvent>.makeBus()   // the SDK keeps the emitter
///
/// let token = bus.on(.initialized) { _ in print("flags ready") }
/// emitter.fire(.initialized)
/// await bus.flush()                                          // "flags ready" has been printed
/// await bus.off(token)
/// ```
///
/// Subscribing, firing and counting never suspend; only ``off(_:)`` (which may wait for a pass that
/// is calling that listener) and ``flush()`` do. The built-in catalogue's bus is ``EventBus``.
public actor CatalogueBus<Catalogue: EventCatalogue> {
    nonisolated let storage: BusStorage
    nonisolated let index: CatalogueIndex<Catalogue>

    init(diagnostics: (@Sendable (BusDiagnostic) -> Void)?) {
        let index = CatalogueIndex<Catalogue>()
        self.index = index
        storage = BusStorage(
            layout: .of(Catalogue.Payload.self),
            replayRules: index.replayRules,
            diagnostics: diagnostics
        )
    }

    /// Ends every subscription when the bus and its emitter are gone (the emitter holds its bus).
    ///
    /// No one can fire any more, and subscriptions whose callbacks refer back to the bus (one-shot,
    /// owner-bound) would otherwise keep it alive. Sequences finish.
    deinit {
        storage.shutDown()
    }

    /// Creates a bus and the capability to fire on it.
    ///
    /// Keep the emitter inside the SDK and give app code the bus: only the holder of the emitter can
    /// fire events.
    ///
    /// ```swift
    /// let (bus, emitter) = EventBus.makeBus()
    /// ```
    ///
    /// - Parameter diagnostics: Called with what the bus notices (a lane falling behind, an event
    ///   sequence dropping events), on the thread where it happens; keep it short.
    /// - Returns: The bus, and the emitter that fires on it.
    public static func makeBus(
        diagnostics: (@Sendable (BusDiagnostic) -> Void)? = nil
    ) -> (bus: CatalogueBus, emitter: CatalogueEmitter<Catalogue>) {
        let bus = CatalogueBus(diagnostics: diagnostics)
        return (bus, CatalogueEmitter(storage: bus.storage, index: bus.index, bus: bus))
    }

    /// Subscribes `callback` to `event`, on the main actor.
    ///
    /// Every call is an independent subscription, even with the same closure. The listener receives
    /// every event fired from now until it is unsubscribed, in fire order.
    ///
    /// ```swift
    /// let token = bus.on(.configUpdated, replayLatest: true) { payload in render(payload) }
    /// ```
    ///
    /// - Parameters:
    ///   - event: The event to listen to.
    ///   - replayLatest: Whether to first receive the latest payload fired before subscribing, for
    ///     events whose rule is ``ReplayRule/latestOnRequest``; sticky events always replay.
    ///   - callback: Called on the main actor with each payload of `event`.
    /// - Returns: The token that ends this subscription with ``off(_:)`` or ``cancel(_:)``.
    public nonisolated func on(
        _ event: Catalogue,
        replayLatest: Bool = false,
        callback: @escaping @MainActor @Sendable (Catalogue.Payload) -> Void
    ) -> EventSubscription {
        subscribe(event, lane: .mainActor, replayLatest: replayLatest) { _ in .erasing(mainActor: callback) }
    }

    /// Ends the subscription `token` names.
    ///
    /// After `off` returns the callback is never invoked again, even for events fired earlier and
    /// not yet delivered, and the bus no longer retains it. Calling `off` twice, with an unknown
    /// token, or with another bus's token does nothing.
    ///
    /// `off` waits only while a delivery pass may still call this listener — the pass is at it, or
    /// before it in the same fire — and otherwise returns after a short lock. It never waits for an
    /// executor that is busy with other work.
    ///
    /// If the calling task is cancelled, before or while `off` waits, it returns at once with the
    /// subscription ended, as after ``cancel(_:)``: no later fire reaches it, but a call that a
    /// delivery pass is making, or has already reached, may still run or be finishing; the bus
    /// releases the callback when that pass moves on.
    ///
    /// - Parameter token: The token `on` returned.
    public nonisolated(nonsending) func off(_ token: EventSubscription) async {
        await storage.off(token)
    }

    /// Ends the subscription `token` names, synchronously, from any context.
    ///
    /// The same as ``off(_:)`` where you cannot `await`, for example in a `deinit`:
    ///
    /// ```swift
    /// deinit { bus.cancel(token) }
    /// ```
    ///
    /// On the executor that delivers to the subscription (including inside a callback) the cut is
    /// exact. From elsewhere, a callback that a running pass is calling at this moment may finish,
    /// and one the pass has already reached may still run once; the pass then releases it. Use
    /// ``off(_:)`` to wait for that.
    ///
    /// - Parameter token: The token `on` returned.
    public nonisolated func cancel(_ token: EventSubscription) {
        storage.cancel(token)
    }

    /// Returns once every event fired before the call has been delivered to its listeners, in every
    /// delivery context.
    ///
    /// For tests and orderly shutdown: await delivery instead of sleeping. If the calling task is
    /// cancelled, before or while it waits, `flush` returns at once; delivery goes on.
    ///
    /// ```swift
    /// emitter.fire(.ready(ReadyPayload()))
    /// await bus.flush()   // every `.ready` listener has run
    /// ```
    public nonisolated(nonsending) func flush() async {
        await storage.flush()
    }

    /// The number of live subscriptions to `event`, in every delivery context.
    ///
    /// Subscriptions whose owner has been deallocated are ended first, so they do not count.
    ///
    /// - Parameter event: The event to count listeners of.
    /// - Returns: How many subscriptions to `event` have not ended.
    public nonisolated func listenerCount(for event: Catalogue) -> Int {
        storage.listenerCount(for: index.position(of: event))
    }

    /// Fires `payload` from a component inside this package.
    ///
    /// SDK authors outside the package fire through the ``CatalogueEmitter`` from ``makeBus(diagnostics:)``.
    package nonisolated func fire(_ payload: Catalogue.Payload) {
        withUnsafePointer(to: payload) { storage.fire(event: index.position(of: payload.event), payload: $0) }
    }

    /// Subscribes in `lane`; the one path every subscription method takes.
    nonisolated func subscribe(
        _ event: Catalogue,
        lane: LaneSelector,
        lifetime: SubscriptionLifetime? = nil,
        replayLatest: Bool = false,
        makeCallback: (EventSubscription) -> ErasedCallback
    ) -> EventSubscription {
        storage.subscribe(
            event: index.position(of: event),
            lane: lane,
            lifetime: lifetime,
            replayLatest: replayLatest,
            makeCallback: makeCallback
        )
    }
}

/// The capability to fire events on one ``CatalogueBus``.
///
/// An SDK keeps the emitter and hands app code only the bus, so app code cannot spoof the SDK's
/// events. Create both with ``CatalogueBus/makeBus(diagnostics:)``:
///
/// ```swift
/// let (bus, emitter) = EventBus.makeBus()
/// emitter.fire(.conversion(ConversionPayload(goalId: "g1", visitorId: "v1")))
/// ```
public struct CatalogueEmitter<Catalogue: EventCatalogue>: Sendable {
    let storage: BusStorage
    let index: CatalogueIndex<Catalogue>
    /// The bus this emitter fires on: the one to hand app code.
    public let bus: CatalogueBus<Catalogue>

    /// Fires `payload` to every listener of its event that is subscribed now.
    ///
    /// Synchronous and callable from any context — a delegate callback, a completion handler, a
    /// `deinit` — and it never waits for callbacks: main-actor and actor listeners run later, in
    /// fire order; immediate listeners run on this thread before `fire` returns (unless another
    /// thread is delivering on the bus's immediate lane right now, which then delivers this fire
    /// next). Fires from one thread keep their order; fires from different threads are ordered by
    /// when they reach the bus. The event is the payload's own, so an event and a payload that
    /// disagree cannot be fired. Use ``CatalogueBus/flush()`` to wait for delivery.
    ///
    /// - Parameter payload: The event's payload.
    public func fire(_ payload: Catalogue.Payload) {
        withUnsafePointer(to: payload) { storage.fire(event: index.position(of: payload.event), payload: $0) }
    }

    /// Fires a payload struct to every listener of its event that is subscribed now.
    ///
    /// The same as ``fire(_:)-(Catalogue.Payload)`` with the struct's ``EventPayload/payloadValue``.
    /// A debug build stops when that value is another event's (a struct whose `event` and
    /// `payloadValue` disagree), with a message that names both events.
    ///
    /// ```swift
    /// emitter.fire(ConversionPayload(goalId: "g1", visitorId: "v1"))
    /// ```
    ///
    /// - Parameter payload: The event's payload.
    public func fire<Payload: EventPayload>(_ payload: Payload) where Payload.Catalogue == Catalogue {
        fire(payload.checkedPayloadValue)
    }

    /// Retracts the payload that `event` replays to late listeners: a listener that subscribes
    /// afterwards receives nothing of `event` until its next fire.
    ///
    /// For a ``ReplayRule/sticky`` or ``ReplayRule/latestOnRequest`` event whose retained value
    /// stopped being true — the user an SDK announced has logged out, say:
    ///
    /// ```swift
    /// emitter.clearReplay(of: .ready)   // a listener added now waits for the next `.ready`
    /// ```
    ///
    /// Listeners already subscribed are not told, and deliveries already queued (a fire not yet
    /// delivered, or a replay owed to a listener that subscribed before this call) still happen.
    /// Synchronous, callable from any context; the retained payload is destroyed before it returns,
    /// outside the bus's lock. Does nothing for an event whose rule is ``ReplayRule/none``, or that
    /// has nothing retained.
    ///
    /// - Parameter event: The event whose retained payload to forget.
    public func clearReplay(of event: Catalogue) {
        storage.clearReplay(of: index.position(of: event))
    }

    /// Shuts the bus down: every subscription ends, event sequences finish, and callbacks are
    /// released; later fires and subscriptions do nothing.
    ///
    /// Events fired but not yet delivered are dropped; await ``CatalogueBus/flush()`` first to
    /// deliver them. Synchronous, so it can run from a `deinit`. ``CatalogueClient/shutdown()``
    /// calls it after flushing.
    public func shutdown() {
        storage.shutDown()
    }

    /// Shuts the bus down; renamed ``shutdown()``, the one name the package uses for it.
    @available(*, deprecated, renamed: "shutdown()")
    public func finish() {
        shutdown()
    }
}

/// Delivery on the firing thread, before `fire` returns: the context for an SDK's own components
/// that must observe events synchronously.
///
/// ```swift
/// bus.on(.configUpdated, delivery: .immediate) { payload in
///     dataManager.apply(payload)   // done before the `fire` that announced it returns
/// }
/// ```
///
/// Immediate callbacks of one bus run one at a time, in fire order: a fire made while another
/// thread is delivering on the immediate lane is delivered by that thread next, and its own `fire`
/// returns at once. A fire made inside an immediate callback is delivered by the same thread once
/// the fire being delivered has reached all its immediate listeners, before the outer `fire`
/// returns. Keep immediate callbacks short, and never block in them on work that fires on the same
/// bus.
public struct ImmediateDelivery: Sendable, Hashable {
    /// Deliver on the firing thread, before `fire` returns.
    public static let immediate = ImmediateDelivery()
}
