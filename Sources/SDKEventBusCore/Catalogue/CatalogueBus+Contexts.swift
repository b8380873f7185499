extension CatalogueBus {
    // MARK: Immediate

    /// Subscribes `callback` to `event`, delivered on the firing thread before `fire` returns.
    ///
    /// For an SDK's own components that must observe an event synchronously (a cache that applies
    /// a new configuration before the code that announced it goes on). See ``ImmediateDelivery``
    /// for how immediate callbacks are serialized.
    ///
    /// ```swift
    /// let token = bus.on(.configUpdated, delivery: .immediate) { payload in
    ///     cache.apply(payload)
    /// }
    /// ```
    ///
    /// - Parameters:
    ///   - event: The event to listen to.
    ///   - delivery: ``ImmediateDelivery/immediate``.
    ///   - replayLatest: Whether to first receive the latest earlier payload, for events whose rule
    ///     is ``ReplayRule/latestOnRequest``; a replay is delivered before `on` returns.
    ///   - callback: Called on the firing thread with each payload of `event`.
    /// - Returns: The token that ends the subscription.
    public nonisolated func on(
        _ event: Catalogue,
        delivery: ImmediateDelivery,
        replayLatest: Bool = false,
        callback: @escaping @Sendable (Catalogue.Payload) -> Void
    ) -> EventSubscription {
        subscribe(event, lane: .immediate, replayLatest: replayLatest) { _ in .erasing(callback) }
    }

    /// Subscribes `callback` to the next `event` only, delivered on the firing thread.
    ///
    /// - Parameters:
    ///   - event: The event to listen to.
    ///   - delivery: ``ImmediateDelivery/immediate``.
    ///   - callback: Called on the firing thread with the first payload of `event`.
    /// - Returns: The token that ends the subscription before it fires.
    @discardableResult
    public nonisolated func once(
        _ event: Catalogue,
        delivery: ImmediateDelivery,
        callback: @escaping @Sendable (Catalogue.Payload) -> Void
    ) -> EventSubscription {
        let storage = self.storage
        return subscribe(event, lane: .immediate) { token in
            .erasing { (payload: Catalogue.Payload) in
                callback(payload)
                storage.cancel(token)
            }
        }
    }

    /// Subscribes `callback` to `event` for as long as `owner` lives, delivered on the firing thread.
    ///
    /// - Parameters:
    ///   - event: The event to listen to.
    ///   - owner: The object whose lifetime bounds the subscription; held weakly.
    ///   - delivery: ``ImmediateDelivery/immediate``.
    ///   - callback: Called on the firing thread with the owner and each payload of `event`.
    /// - Returns: The token that ends the subscription earlier.
    @discardableResult
    public nonisolated func on<Owner: AnyObject & Sendable>(
        _ event: Catalogue,
        owner: Owner,
        delivery: ImmediateDelivery,
        callback: @escaping @Sendable (Owner, Catalogue.Payload) -> Void
    ) -> EventSubscription {
        let storage = self.storage
        return subscribe(event, lane: .immediate, lifetime: SubscriptionLifetime(owner: owner)) { token in
            .erasing { [weak owner] (payload: Catalogue.Payload) in
                guard let owner else { return storage.cancel(token) }
                callback(owner, payload)
            }
        }
    }

    /// Subscribes `callback` to the event of `payloadType`, delivered on the firing thread, handing
    /// it the payload struct.
    ///
    /// - Parameters:
    ///   - payloadType: The payload type of the event to listen to.
    ///   - delivery: ``ImmediateDelivery/immediate``.
    ///   - replayLatest: Whether to first receive the latest earlier payload, for events whose rule
    ///     is ``ReplayRule/latestOnRequest``.
    ///   - callback: Called on the firing thread with each payload.
    /// - Returns: The token that ends the subscription.
    public nonisolated func on<Payload: EventPayload<Catalogue>>(
        _ payloadType: Payload.Type,
        delivery: ImmediateDelivery,
        replayLatest: Bool = false,
        callback: @escaping @Sendable (Payload) -> Void
    ) -> EventSubscription {
        on(Payload.event, delivery: delivery, replayLatest: replayLatest) { value in
            if let payload = Payload(value) { callback(payload) }
        }
    }

    // MARK: An actor

    /// Subscribes `callback` to `event`, isolated to `actor`, for as long as `actor` lives.
    ///
    /// The callback runs on the actor with the actor itself, so it reads and changes the actor's
    /// state synchronously. Fires are delivered in batches, one job on the actor per batch, never
    /// through the main actor. The bus holds `actor` weakly; the subscription ends when it is
    /// deallocated, or all of its subscriptions at once with ``cancelAll(ownedBy:)``.
    ///
    /// ```swift
    /// actor DataManager {
    ///     var config: ProjectConfig?
    ///
    ///     func start(bus: EventBus) {
    ///         bus.on(.configUpdated, isolation: self) { manager, payload in
    ///             guard case .configUpdated(let update) = payload else { return }
    ///             manager.config = update.snapshot
    ///         }
    ///     }
    /// }
    /// ```
    ///
    /// - Parameters:
    ///   - event: The event to listen to.
    ///   - actor: The actor the callback is isolated to; held weakly.
    ///   - replayLatest: Whether to first receive the latest earlier payload, for events whose rule
    ///     is ``ReplayRule/latestOnRequest``.
    ///   - callback: Called isolated to `actor` with each payload of `event`.
    /// - Returns: The token that ends the subscription earlier.
    @discardableResult
    public nonisolated func on<A: Actor>(
        _ event: Catalogue,
        isolation actor: A,
        replayLatest: Bool = false,
        callback: @escaping @Sendable (isolated A, Catalogue.Payload) -> Void
    ) -> EventSubscription {
        subscribe(event, isolation: actor, once: false, replayLatest: replayLatest, callback: callback)
    }

    /// Subscribes `callback` to the next `event` only, isolated to `actor`.
    ///
    /// - Parameters:
    ///   - event: The event to listen to.
    ///   - actor: The actor the callback is isolated to; held weakly.
    ///   - callback: Called isolated to `actor` with the first payload of `event`.
    /// - Returns: The token that ends the subscription before it fires.
    @discardableResult
    public nonisolated func once<A: Actor>(
        _ event: Catalogue,
        isolation actor: A,
        callback: @escaping @Sendable (isolated A, Catalogue.Payload) -> Void
    ) -> EventSubscription {
        subscribe(event, isolation: actor, once: true, replayLatest: false, callback: callback)
    }

    /// Subscribes `callback` to the event of `payloadType`, isolated to `actor`, handing it the
    /// payload struct.
    ///
    /// - Parameters:
    ///   - payloadType: The payload type of the event to listen to.
    ///   - actor: The actor the callback is isolated to; held weakly.
    ///   - replayLatest: Whether to first receive the latest earlier payload, for events whose rule
    ///     is ``ReplayRule/latestOnRequest``.
    ///   - callback: Called isolated to `actor` with each payload.
    /// - Returns: The token that ends the subscription earlier.
    @discardableResult
    public nonisolated func on<Payload: EventPayload<Catalogue>, A: Actor>(
        _ payloadType: Payload.Type,
        isolation actor: A,
        replayLatest: Bool = false,
        callback: @escaping @Sendable (isolated A, Payload) -> Void
    ) -> EventSubscription {
        on(Payload.event, isolation: actor, replayLatest: replayLatest) { actor, value in
            if let payload = Payload(value) { callback(actor, payload) }
        }
    }

    private nonisolated func subscribe<A: Actor>(
        _ event: Catalogue,
        isolation actor: A,
        once: Bool,
        replayLatest: Bool,
        callback: @escaping @Sendable (isolated A, Catalogue.Payload) -> Void
    ) -> EventSubscription {
        let storage = self.storage
        // The engine calls it only in a job isolated to `actor`.
        let call = nonisolatedCallback(callback)
        return subscribe(
            event,
            lane: .actor(actor),
            lifetime: SubscriptionLifetime(owner: actor),
            replayLatest: replayLatest
        ) { token in
            .erasing { [weak actor] (payload: Catalogue.Payload) in
                guard let actor else { return storage.cancel(token) }
                call(actor, payload)
                if once { storage.cancel(token) }
            }
        }
    }
}
