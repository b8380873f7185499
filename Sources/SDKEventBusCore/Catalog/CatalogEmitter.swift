/// The capability to fire events on one ``CatalogBus``.
///
/// An SDK keeps the emitter and hands app code only the bus, so app code cannot spoof the SDK's
/// events. Create both with ``CatalogBus/makeBus(diagnostics:)``:
///
/// ```swift
/// let (bus, emitter) = EventBus.makeBus()
/// emitter.fire(.conversion(ConversionPayload(goalId: "g1", visitorId: "v1")))
/// ```
public struct CatalogEmitter<Catalog: EventCatalog>: Sendable {
    package let storage: BusStorage
    let index: CatalogIndex<Catalog>
    /// The bus this emitter fires on: the one to hand app code.
    package let bus: CatalogBus<Catalog>

    /// Fires `payload` to every listener of its event that is subscribed now.
    ///
    /// Synchronous and callable from any context — a delegate callback, a completion handler, a
    /// `deinit` — and it never waits for callbacks: main-actor and actor listeners run later, in
    /// fire order; immediate listeners run on this thread before `fire` returns (unless another
    /// thread is delivering on the bus's immediate lane right now, which then delivers this fire
    /// next). Fires from one thread keep their order; fires from different threads are ordered by
    /// when they reach the bus. The event is the payload's own, so an event and a payload that
    /// disagree cannot be fired. Use ``CatalogBus/flush()`` to wait for delivery.
    ///
    /// - Parameter payload: The event's payload.
    @inlinable
    public func fire(_ payload: Catalog.Payload) {
        // Inlinable, so that a caller in another module runs it specialized for its catalog:
        // called across a resilient boundary, it ran unspecialized, looking up the payload's
        // metadata and witnesses on every fire. It only reads the event and hands both to
        // `fire(event:payload:)`; the engine behind that stays opaque.
        let event = payload.event
        withUnsafePointer(to: payload) { fire(event: event, payload: $0) }
    }

    /// Fires the payload at `payload`, whose event is `event`: the one entry into the engine that
    /// ``fire(_:)-(Catalog.Payload)`` inlines into its callers.
    ///
    /// Part of the ABI of a library-evolution build: keep its signature.
    @usableFromInline
    func fire(event: Catalog, payload: UnsafePointer<Catalog.Payload>) {
        let position = index.position(of: event)
        #if DEBUG
            // Checked on the event's first fire only: the check reflects on the payload and prints
            // every event's name, tens of microseconds in a debug build. A release build keeps no
            // verdicts (nor their code).
            assert(index.slipVerdicts.isSlipFree(payload.pointee, at: position), payload.pointee.eventSlip ?? "")
        #endif
        storage.fire(event: position, payload: payload)
    }

    /// Fires a payload struct to every listener of its event that is subscribed now.
    ///
    /// The same as ``fire(_:)-(Catalog.Payload)`` with the struct's ``TypedPayload/payloadValue``.
    /// A debug build stops when that value is another event's (a struct whose `event` and
    /// `payloadValue` disagree), with a message that names both events.
    ///
    /// ```swift
    /// emitter.fire(ConversionPayload(goalId: "g1", visitorId: "v1"))
    /// ```
    ///
    /// - Parameter payload: The event's payload.
    @inlinable
    public func fire<Payload: TypedPayload>(_ payload: Payload) where Payload.Catalog == Catalog {
        // Inlinable for the same reason as `fire(_:)`: unspecialized, wrapping the struct cost more
        // than the fire.
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
    public func clearReplay(of event: Catalog) {
        storage.clearReplay(of: index.position(of: event))
    }

    /// Shuts the bus down: every subscription ends, event sequences finish, and callbacks are
    /// released; later fires and subscriptions do nothing.
    ///
    /// Events fired but not yet delivered are dropped; await ``CatalogBus/flush()`` first to
    /// deliver them. Synchronous, so it can run from a `deinit`. `CatalogClient.shutdown(timeout:)` (in `SDKEventBusConfig`)
    /// calls it after flushing.
    public func shutdown() {
        storage.shutDown()
    }
}
