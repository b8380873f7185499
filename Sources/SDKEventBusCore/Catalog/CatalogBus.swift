public import Foundation

/// An SDK's event bus for one catalog of events: app code subscribes with `on` and unsubscribes
/// with ``off(_:)``; the SDK fires through the ``CatalogEmitter`` that ``makeBus(diagnostics:)``
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
/// | main actor (default) | `on(event) { … }` | on the main actor, in jobs of at most about 2 ms of callbacks |
/// | an actor | `on(event, delivery: .isolated(to: actor)) { actor, payload in … }` | isolated to that actor |
/// | immediate | `on(event, delivery: .immediate) { … }` | on the firing thread, before `fire` returns |
///
/// ```swift
/// let (bus, emitter) = CatalogBus<FlagEvent>.makeBus()   // the SDK keeps the emitter
///
/// let token = bus.on(.initialized) { _ in print("flags ready") }
/// emitter.fire(.initialized)
/// await bus.flush()                                          // "flags ready" has been printed
/// await bus.off(token)
/// ```
///
/// Subscribing, firing and counting never suspend; only ``off(_:)`` (which may wait for a pass that
/// is calling that listener) and ``flush()`` do. The built-in catalog's bus is `EventBus`.
public actor CatalogBus<Catalog: EventCatalog> {
    package nonisolated let storage: BusStorage
    nonisolated let index: CatalogIndex<Catalog>

    init(diagnostics: (@Sendable (BusDiagnostic) -> Void)?) {
        let index = CatalogIndex<Catalog>()
        self.index = index
        storage = BusStorage(
            layout: .of(Catalog.Payload.self),
            replayRules: index.replayRules,
            diagnostics: diagnostics,
            eventName: { index.events[$0].rawValue }
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
    ) -> (bus: CatalogBus, emitter: CatalogEmitter<Catalog>) {
        let bus = CatalogBus(diagnostics: diagnostics)
        return (bus, CatalogEmitter(storage: bus.storage, index: bus.index, bus: bus))
    }

    /// Returns once every event fired before the call has been delivered to its listeners, in every
    /// delivery context.
    ///
    /// For tests and orderly shutdown: await delivery instead of sleeping. When its task is
    /// cancelled it returns at once, and delivery goes on. A member of the bus, not a subscribing
    /// verb: through a client or an SDK's facade, it is `bus.flush()`.
    ///
    /// ```swift
    /// emitter.fire(.initialized)
    /// await bus.flush()          // every `.initialized` listener has run
    /// await client.bus.flush()   // the same, through a client
    /// ```
    public nonisolated func flush() async {
        await storage.flush()
    }

    /// Fires `payload` from a component inside this package.
    ///
    /// SDK authors outside the package fire through the ``CatalogEmitter`` from ``makeBus(diagnostics:)``.
    package nonisolated func fire(_ payload: Catalog.Payload) {
        CatalogEmitter(storage: storage, index: index, bus: self).fire(payload)
    }

    /// Subscribes in `lane`; the one path every subscription takes.
    ///
    /// - Parameters:
    ///   - event: The event.
    ///   - lane: Where the callback runs.
    ///   - owner: The object whose lifetime bounds the subscription, if any.
    ///   - replayLatest: Whether to replay a ``ReplayRule/latestOnRequest`` event's latest payload.
    ///   - file: The file of the call that subscribes (`#fileID`), if known.
    ///   - line: Its line.
    ///   - make: Makes the callback, given the subscription (a callback that ends it calls its
    ///     `cancel()`). Nothing is allocated for a callback that never ends itself.
    /// - Returns: The subscription.
    nonisolated func subscribe(
        _ event: Catalog,
        lane: LaneSelector,
        owner: (any AnyObject & Sendable)? = nil,
        replayLatest: Bool = false,
        file: StaticString? = nil,
        line: UInt = 0,
        make: (_ subscription: EventSubscription) -> ErasedCallback
    ) -> EventSubscription {
        subscribe(
            event, lane: lane, lifetime: owner.map { SubscriptionLifetime(owner: $0) }, replayLatest: replayLatest,
            file: file, line: line, makeCallback: make)
    }

    /// Subscribes a callback isolated to the actor of `delivery`, bound to the actor's lifetime (or
    /// to `owner`'s, and the actor's).
    nonisolated func subscribe<A: Actor>(
        _ event: Catalog,
        isolatedTo delivery: Delivery<A>,
        owner: (any AnyObject & Sendable)? = nil,
        replayLatest: Bool = false,
        file: StaticString? = nil,
        line: UInt = 0,
        callback: @escaping @Sendable (isolated A, Catalog.Payload, _ end: @escaping @Sendable () -> Void) -> Void
    ) -> EventSubscription {
        guard case .actor(let isolation) = delivery.lane, let actor = isolation as? A else {
            preconditionFailure("a Delivery<\(A.self)> names its actor")
        }
        // The engine calls it only in a job isolated to `actor`.
        let call = ErasedCallback.nonisolated(callback)
        let owner = owner ?? actor
        return subscribe(
            event, lane: delivery.lane, owner: owner, replayLatest: replayLatest, file: file, line: line
        ) { subscription in
            let end: @Sendable () -> Void = { subscription.cancel() }
            return .erasing(isolatedTo: actor, call, end: end)
        }
    }

    /// Subscribes in `lane` with a lifetime, given the subscription's own value.
    nonisolated func subscribe(
        _ event: Catalog,
        lane: LaneSelector,
        lifetime: SubscriptionLifetime?,
        replayLatest: Bool = false,
        file: StaticString? = nil,
        line: UInt = 0,
        makeCallback: (EventSubscription) -> ErasedCallback
    ) -> EventSubscription {
        storage.subscribe(
            event: index.position(of: event),
            lane: lane,
            lifetime: lifetime,
            replayLatest: replayLatest,
            file: file,
            line: line,
            makeCallback: makeCallback
        )
    }
}

extension CatalogBus {
    /// How long a main-actor callback may run before the bus reports it as a slow listener
    /// (``BusDiagnostic/slowListener(event:file:line:duration:)``), in seconds: 16 ms, one frame at
    /// 60 Hz, unless set otherwise; `nil` reports none.
    ///
    /// Set it from any thread; it applies from the next main-actor delivery job on. Through a client:
    /// `client.bus.slowListenerThreshold = 0.008`.
    public nonisolated var slowListenerThreshold: TimeInterval? {
        get {
            let nanoseconds = storage.slowListenerThreshold
            return nanoseconds == .max ? nil : Double(nanoseconds) / 1e9
        }
        set {
            // Not a number, or beyond what the clock counts: none.
            guard let seconds = newValue, seconds < 1e9, !seconds.isNaN else {
                return storage.setSlowListenerThreshold(.max)
            }
            storage.setSlowListenerThreshold(UInt64(max(0, seconds) * 1e9))
        }
    }
}

extension CatalogBus: CatalogSubscribing {
    /// The bus itself.
    @inlinable
    public nonisolated var bus: CatalogBus<Catalog> { self }
}

// The entries into the engine that the inlinable verbs of `CatalogSubscribing` call: part of the
// ABI of a library-evolution build, keep their signatures.
extension CatalogBus {
    /// Subscribes a main-actor callback: the one entry into the engine that the main-actor `on` of
    /// ``CatalogSubscribing`` inlines into its callers.
    @usableFromInline
    nonisolated func subscribe(
        _ event: Catalog,
        delivery: Delivery<MainActor>,
        replayLatest: Bool,
        callback: @escaping @MainActor @Sendable (Catalog.Payload) -> Void
    ) -> EventSubscription {
        // A binary built against 1.0.0 passes no site.
        subscribe(event, delivery: delivery, replayLatest: replayLatest, file: "", line: 0, callback: callback)
    }

    /// Subscribes an immediate callback: the entry of the immediate `on`.
    @usableFromInline
    nonisolated func subscribe(
        _ event: Catalog,
        delivery: Delivery<FiringThread>,
        replayLatest: Bool,
        callback: @escaping @Sendable (Catalog.Payload) -> Void
    ) -> EventSubscription {
        subscribe(event, delivery: delivery, replayLatest: replayLatest, file: "", line: 0, callback: callback)
    }

    /// Subscribes a main-actor callback made at `file` and `line`: the entry of the main-actor `on`
    /// since 1.2.0, which names where it was called.
    @usableFromInline
    nonisolated func subscribe(
        _ event: Catalog,
        delivery: Delivery<MainActor>,
        replayLatest: Bool,
        file: StaticString,
        line: UInt,
        callback: @escaping @MainActor @Sendable (Catalog.Payload) -> Void
    ) -> EventSubscription {
        storage.subscribe(
            event: index.position(of: event), lane: delivery.lane, replayLatest: replayLatest, file: file,
            line: line, callback: .erasing(mainActor: callback))
    }

    /// Subscribes an immediate callback made at `file` and `line`: the entry of the immediate `on`
    /// since 1.2.0.
    @usableFromInline
    nonisolated func subscribe(
        _ event: Catalog,
        delivery: Delivery<FiringThread>,
        replayLatest: Bool,
        file: StaticString,
        line: UInt,
        callback: @escaping @Sendable (Catalog.Payload) -> Void
    ) -> EventSubscription {
        storage.subscribe(
            event: index.position(of: event), lane: delivery.lane, replayLatest: replayLatest, file: file,
            line: line, callback: .erasing(callback))
    }

    /// Ends `subscription` for `off`, synchronously.
    ///
    /// - Returns: `nil` when its callback can no longer run; otherwise the number of the bucket
    ///   whose running pass may still call it, for ``waitForPass(bucket:of:)``.
    @usableFromInline
    nonisolated func endWaitingForPass(_ subscription: EventSubscription) -> Int? {
        storage.endWaitingForPass(subscription)
    }

    /// Returns once the pass that may still call the ended `subscription` in `bucket` can no
    /// longer call it, or once the task is cancelled.
    @usableFromInline
    nonisolated func waitForPass(bucket: Int, of subscription: EventSubscription) async {
        await storage.waitForPass(bucket: bucket, id: subscription.listenerID)
    }
}
