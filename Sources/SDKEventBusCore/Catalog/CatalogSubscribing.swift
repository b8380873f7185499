/// What app code subscribes to a catalog's events through: a ``CatalogBus``, a
/// `CatalogClient` and its `CatalogReader` (in `SDKEventBusConfig`), or an SDK's own facade.
///
/// Every conformer offers the same verbs, implemented once here over its ``bus``: `on` (every
/// event fired while subscribed), `once` (the next one only), `on(_:owner:…)` (for as long as an
/// object lives), the typed variants that hand the payload struct, `stream` (an asynchronous
/// sequence), `off`, `cancelAll(ownedBy:)` and `listenerCount`. Each subscription names where its
/// callback runs with one parameter, `delivery` (see ``Delivery``), and returns an
/// ``EventSubscription``.
///
/// ```swift
/// let subscription = sdk.on(.flagsChanged) { payload in render(payload) }      // the main actor
/// sdk.on(.flagsChanged, delivery: .immediate) { payload in cache.apply(payload) }
/// sdk.once(.initialized, delivery: .isolated(to: store)) { store, _ in store.markReady() }
/// await sdk.off(subscription)
/// ```
///
/// An SDK's facade conforms by naming its bus, and gets every verb without forwarding:
///
/// ```swift
/// public final class FlagSDK: CatalogSubscribing {
///     private let client: CatalogClient<FlagEvent>
///     public var bus: CatalogBus<FlagEvent> { client.bus }
///     // …
/// }
/// ```
///
/// The verbs claim none of the words an SDK's facade uses for itself: a facade keeps its own
/// `flush()` (an analytics SDK's upload), `events`, `reset()`, and means the same by them on the
/// concrete type and in generic code. Awaiting delivery is the bus's: `bus.flush()`.
public protocol CatalogSubscribing<Catalog>: Sendable {
    /// The catalog of events.
    associatedtype Catalog: EventCatalog

    /// The bus the subscriptions are made on.
    var bus: CatalogBus<Catalog> { get }
}

extension CatalogSubscribing {
    // MARK: Every event

    /// Subscribes `callback` to `event`, on the main actor.
    ///
    /// Every call is an independent subscription, even with the same closure. The listener receives
    /// every event fired from now until the subscription ends, in fire order; within one fire,
    /// after the listeners of its context that subscribed before it.
    ///
    /// ```swift
    /// let subscription = bus.on(.configUpdated, replayLatest: true) { payload in render(payload) }
    /// ```
    ///
    /// - Parameters:
    ///   - event: The event to listen to.
    ///   - delivery: ``Delivery/mainActor``, the default.
    ///   - replayLatest: Whether to first receive the latest payload fired before subscribing, for
    ///     events whose rule is ``ReplayRule/latestOnRequest``; sticky events always replay.
    ///   - file: Where `on` is called; a slow-listener report and a timeline name it. Leave the
    ///     default.
    ///   - line: The line of the call; leave the default.
    ///   - callback: Called on the main actor with each payload of `event`.
    /// - Returns: The subscription; end it with ``off(_:)`` or ``EventSubscription/cancel()``.
    @inlinable
    @discardableResult
    public func on(
        _ event: Catalog,
        delivery: Delivery<MainActor> = .mainActor,
        replayLatest: Bool = false,
        file: StaticString = #fileID,
        line: UInt = #line,
        callback: @escaping @MainActor @Sendable (Catalog.Payload) -> Void
    ) -> EventSubscription {
        // Inlinable, so that a caller in another module runs it specialized for its bus: called
        // unspecialized, it reached the bus through the protocol's witness and looked up the
        // catalog's associated types on every `on`. The engine behind the one entry it calls
        // stays opaque.
        bus.subscribe(event, delivery: delivery, replayLatest: replayLatest, file: file, line: line, callback: callback)
    }

    /// Subscribes `callback` to `event`, on the main actor, without naming the call site.
    ///
    /// The form without `file` and `line`, kept for the binaries built against 1.0.0 that call it:
    /// source code calls the one that names its call site.
    ///
    /// - Parameters:
    ///   - event: The event to listen to.
    ///   - delivery: ``Delivery/mainActor``, the default.
    ///   - replayLatest: Whether to first receive the latest payload fired before subscribing.
    ///   - callback: Called on the main actor with each payload of `event`.
    /// - Returns: The subscription.
    @inlinable
    @discardableResult
    @_disfavoredOverload
    public func on(
        _ event: Catalog,
        delivery: Delivery<MainActor> = .mainActor,
        replayLatest: Bool = false,
        callback: @escaping @MainActor @Sendable (Catalog.Payload) -> Void
    ) -> EventSubscription {
        bus.subscribe(event, delivery: delivery, replayLatest: replayLatest, callback: callback)
    }

    /// Subscribes `callback` to `event`, on the firing thread before `fire` returns.
    ///
    /// - Parameters:
    ///   - event: The event to listen to.
    ///   - delivery: ``Delivery/immediate``.
    ///   - replayLatest: Whether to first receive the latest earlier payload, for events whose rule
    ///     is ``ReplayRule/latestOnRequest``. A replay comes before anything fired after the
    ///     subscription, and is delivered before `on` returns unless another thread is delivering on
    ///     the immediate lane at that moment: that thread then delivers it, next.
    ///   - file: Where `on` is called; a timeline names it. Leave the default.
    ///   - line: The line of the call; leave the default.
    ///   - callback: Called on the firing thread with each payload of `event`.
    /// - Returns: The subscription.
    @inlinable
    @discardableResult
    public func on(
        _ event: Catalog,
        delivery: Delivery<FiringThread>,
        replayLatest: Bool = false,
        file: StaticString = #fileID,
        line: UInt = #line,
        callback: @escaping @Sendable (Catalog.Payload) -> Void
    ) -> EventSubscription {
        // Inlinable for the same reason as the main-actor `on`.
        bus.subscribe(event, delivery: delivery, replayLatest: replayLatest, file: file, line: line, callback: callback)
    }

    /// Subscribes `callback` to `event`, on the firing thread, without naming the call site.
    ///
    /// The form without `file` and `line`, kept for the binaries built against 1.0.0 that call it:
    /// source code calls the one that names its call site.
    ///
    /// - Parameters:
    ///   - event: The event to listen to.
    ///   - delivery: ``Delivery/immediate``.
    ///   - replayLatest: Whether to first receive the latest earlier payload.
    ///   - callback: Called on the firing thread with each payload of `event`.
    /// - Returns: The subscription.
    @inlinable
    @discardableResult
    @_disfavoredOverload
    public func on(
        _ event: Catalog,
        delivery: Delivery<FiringThread>,
        replayLatest: Bool = false,
        callback: @escaping @Sendable (Catalog.Payload) -> Void
    ) -> EventSubscription {
        bus.subscribe(event, delivery: delivery, replayLatest: replayLatest, callback: callback)
    }

    /// Subscribes `callback` to `event`, isolated to an actor, for as long as the actor lives.
    ///
    /// ```swift
    /// actor DataManager {
    ///     var flags: FlagSet?
    ///
    ///     func start(bus: CatalogBus<FlagEvent>) {
    ///         bus.on(.flagsChanged, delivery: .isolated(to: self)) { manager, payload in
    ///             manager.apply(payload)
    ///         }
    ///     }
    /// }
    /// ```
    ///
    /// - Parameters:
    ///   - event: The event to listen to.
    ///   - delivery: ``Delivery/isolated(to:)``; the bus holds the actor weakly.
    ///   - replayLatest: Whether to first receive the latest earlier payload, for events whose rule
    ///     is ``ReplayRule/latestOnRequest``.
    ///   - file: Where `on` is called; a timeline names it. Leave the default.
    ///   - line: The line of the call; leave the default.
    ///   - callback: Called isolated to the actor with the actor and each payload of `event`.
    /// - Returns: The subscription.
    @discardableResult
    public func on<A: Actor>(
        _ event: Catalog,
        delivery: Delivery<A>,
        replayLatest: Bool = false,
        file: StaticString = #fileID,
        line: UInt = #line,
        callback: @escaping @Sendable (isolated A, Catalog.Payload) -> Void
    ) -> EventSubscription {
        bus.subscribe(event, isolatedTo: delivery, replayLatest: replayLatest, file: file, line: line) {
            actor, payload, _ in
            callback(actor, payload)
        }
    }

    /// Subscribes `callback` to `event`, isolated to an actor, without naming the call site.
    ///
    /// The form without `file` and `line`, kept for the binaries built against 1.0.0 that call it:
    /// source code calls the one that names its call site.
    ///
    /// - Parameters:
    ///   - event: The event to listen to.
    ///   - delivery: ``Delivery/isolated(to:)``; the bus holds the actor weakly.
    ///   - replayLatest: Whether to first receive the latest earlier payload.
    ///   - callback: Called isolated to the actor with the actor and each payload of `event`.
    /// - Returns: The subscription.
    @discardableResult
    @_disfavoredOverload
    public func on<A: Actor>(
        _ event: Catalog,
        delivery: Delivery<A>,
        replayLatest: Bool = false,
        callback: @escaping @Sendable (isolated A, Catalog.Payload) -> Void
    ) -> EventSubscription {
        on(event, delivery: delivery, replayLatest: replayLatest, file: "", line: 0, callback: callback)
    }

    // MARK: The next event

    /// Subscribes `callback` to the next `event` only, on the main actor.
    ///
    /// The callback runs at most once, even when several events are already queued; the
    /// subscription then ends by itself. End it earlier with ``off(_:)``.
    ///
    /// ```swift
    /// bus.once(.ready) { _ in print("ready") }
    /// ```
    ///
    /// - Parameters:
    ///   - event: The event to listen to.
    ///   - delivery: ``Delivery/mainActor``, the default.
    ///   - callback: Called on the main actor with the first payload of `event`.
    /// - Returns: The subscription.
    @discardableResult
    public func once(
        _ event: Catalog,
        delivery: Delivery<MainActor> = .mainActor,
        callback: @escaping @MainActor @Sendable (Catalog.Payload) -> Void
    ) -> EventSubscription {
        bus.subscribe(event, lane: delivery.lane) { subscription in
            .erasing(mainActor: { @MainActor (payload: Catalog.Payload) in
                callback(payload)
                subscription.cancel()
            })
        }
    }

    /// Subscribes `callback` to the next `event` only, on the firing thread.
    ///
    /// - Parameters:
    ///   - event: The event to listen to.
    ///   - delivery: ``Delivery/immediate``.
    ///   - callback: Called on the firing thread with the first payload of `event`.
    /// - Returns: The subscription.
    @discardableResult
    public func once(
        _ event: Catalog,
        delivery: Delivery<FiringThread>,
        callback: @escaping @Sendable (Catalog.Payload) -> Void
    ) -> EventSubscription {
        bus.subscribe(event, lane: delivery.lane) { subscription in
            .erasing { (payload: Catalog.Payload) in
                callback(payload)
                subscription.cancel()
            }
        }
    }

    /// Subscribes `callback` to the next `event` only, isolated to an actor.
    ///
    /// - Parameters:
    ///   - event: The event to listen to.
    ///   - delivery: ``Delivery/isolated(to:)``; the bus holds the actor weakly.
    ///   - callback: Called isolated to the actor with the actor and the first payload of `event`.
    /// - Returns: The subscription.
    @discardableResult
    public func once<A: Actor>(
        _ event: Catalog,
        delivery: Delivery<A>,
        callback: @escaping @Sendable (isolated A, Catalog.Payload) -> Void
    ) -> EventSubscription {
        bus.subscribe(event, isolatedTo: delivery) { actor, payload, end in
            callback(actor, payload)
            end()
        }
    }

    // MARK: For as long as an owner lives

    /// Subscribes `callback` to `event` for as long as `owner` lives, on the main actor.
    ///
    /// The bus holds `owner` weakly and hands it to the callback, so there is no `[weak self]`
    /// dance. Once `owner` is deallocated the callback never runs again and the subscription ends
    /// without anyone calling ``off(_:)``; ``cancelAll(ownedBy:)`` ends all of an owner's
    /// subscriptions at once.
    ///
    /// ```swift
    /// bus.on(.configUpdated, owner: self) { model, payload in model.apply(payload) }
    /// ```
    ///
    /// - Parameters:
    ///   - event: The event to listen to.
    ///   - owner: The object whose lifetime bounds the subscription; held weakly.
    ///   - delivery: ``Delivery/mainActor``, the default.
    ///   - callback: Called on the main actor with the owner and each payload of `event`; do not
    ///     capture `owner` strongly in it.
    /// - Returns: The subscription.
    @discardableResult
    public func on<Owner: AnyObject & Sendable>(
        _ event: Catalog,
        owner: Owner,
        delivery: Delivery<MainActor> = .mainActor,
        callback: @escaping @MainActor @Sendable (Owner, Catalog.Payload) -> Void
    ) -> EventSubscription {
        bus.subscribe(event, lane: delivery.lane, owner: owner) { subscription in
            .erasing(mainActor: { @MainActor [weak owner] (payload: Catalog.Payload) in
                guard let owner else { return subscription.cancel() }
                callback(owner, payload)
            })
        }
    }

    /// Subscribes `callback` to `event` for as long as `owner` lives, on the firing thread.
    ///
    /// - Parameters:
    ///   - event: The event to listen to.
    ///   - owner: The object whose lifetime bounds the subscription; held weakly.
    ///   - delivery: ``Delivery/immediate``.
    ///   - callback: Called on the firing thread with the owner and each payload of `event`.
    /// - Returns: The subscription.
    @discardableResult
    public func on<Owner: AnyObject & Sendable>(
        _ event: Catalog,
        owner: Owner,
        delivery: Delivery<FiringThread>,
        callback: @escaping @Sendable (Owner, Catalog.Payload) -> Void
    ) -> EventSubscription {
        bus.subscribe(event, lane: delivery.lane, owner: owner) { subscription in
            .erasing { [weak owner] (payload: Catalog.Payload) in
                guard let owner else { return subscription.cancel() }
                callback(owner, payload)
            }
        }
    }

    // MARK: Ending and counting

    /// Ends a subscription, and returns once its callback can no longer run.
    ///
    /// After `off` returns the callback is never invoked again, even for events fired earlier and
    /// not yet delivered, and the bus no longer retains it. Calling `off` twice, with another bus's
    /// subscription, or with one that has ended does nothing.
    ///
    /// `off` waits only while a delivery pass may still call this listener (the pass is at it, or
    /// before it in the same fire) and otherwise returns after a short lock; it never waits for an
    /// executor that is busy with other work. When its task is cancelled it returns at once: the
    /// subscription has ended, as after ``EventSubscription/cancel()``, but a call already under
    /// way may still finish.
    ///
    /// - Parameter subscription: What `on` or `once` returned.
    @inlinable
    public func off(_ subscription: EventSubscription) async {
        // Inlinable, so that an `off` that need not wait (no pass may be calling the listener, the
        // common case) ends the subscription with one synchronous call, without an async frame
        // of its own or of the engine's; only an `off` that must wait for a pass suspends.
        let bus = self.bus
        if let bucket = bus.endWaitingForPass(subscription) {
            await bus.waitForPass(bucket: bucket, of: subscription)
        }
    }

    /// Ends every subscription bound to `owner`, synchronously, from any context.
    ///
    /// It works from the owner's own `deinit`:
    ///
    /// ```swift
    /// deinit { bus.cancelAll(ownedBy: self) }
    /// ```
    ///
    /// - Parameter owner: An owner passed to `on(_:owner:…)`, or an actor passed to
    ///   ``Delivery/isolated(to:)``.
    public func cancelAll(ownedBy owner: AnyObject) {
        bus.storage.cancelAll(ownedBy: owner)
    }

    /// The number of live subscriptions to `event`, in every delivery context.
    ///
    /// Subscriptions whose owner has been deallocated are ended first, so they do not count.
    ///
    /// - Parameter event: The event to count listeners of.
    /// - Returns: How many subscriptions to `event` have not ended.
    public func listenerCount(for event: Catalog) -> Int {
        bus.storage.listenerCount(for: bus.index.position(of: event))
    }
}
