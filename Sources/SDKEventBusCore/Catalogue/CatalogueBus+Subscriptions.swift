extension CatalogueBus {
    // MARK: One-shot

    /// Subscribes `callback` to the next `event` only, on the main actor.
    ///
    /// The callback runs at most once, even when several events are already queued; the
    /// subscription ends by itself when the callback returns (a lane never calls a listener again
    /// before its call returns, and an `off` racing that call waits for it). The token ends it
    /// earlier.
    ///
    /// ```swift
    /// bus.once(.ready) { _ in print("ready") }
    /// ```
    ///
    /// - Parameters:
    ///   - event: The event to listen to.
    ///   - callback: Called on the main actor with the first payload of `event`.
    /// - Returns: The token that ends the subscription before it fires.
    @discardableResult
    public nonisolated func once(
        _ event: Catalogue,
        callback: @escaping @MainActor @Sendable (Catalogue.Payload) -> Void
    ) -> EventSubscription {
        let storage = self.storage
        return subscribe(event, lane: .mainActor) { token in
            .erasing(mainActor: { @MainActor (payload: Catalogue.Payload) in
                callback(payload)
                storage.cancel(token)
            })
        }
    }

    // MARK: Owner-bound

    /// Subscribes `callback` to `event` for as long as `owner` lives, on the main actor.
    ///
    /// The bus holds `owner` weakly and hands it to the callback, so there is no `[weak self]`
    /// dance. Once `owner` is deallocated the callback never runs again and the subscription is
    /// removed without anyone calling ``off(_:)``. End all of an owner's subscriptions at once with
    /// ``cancelAll(ownedBy:)``.
    ///
    /// ```swift
    /// bus.on(.configUpdated, owner: self) { model, payload in
    ///     model.apply(payload)
    /// }
    /// ```
    ///
    /// - Parameters:
    ///   - event: The event to listen to.
    ///   - owner: The object whose lifetime bounds the subscription; held weakly.
    ///   - callback: Called on the main actor with the owner and each payload of `event`; do not
    ///     capture `owner` strongly in it.
    /// - Returns: The token that ends the subscription earlier.
    @discardableResult
    public nonisolated func on<Owner: AnyObject & Sendable>(
        _ event: Catalogue,
        owner: Owner,
        callback: @escaping @MainActor @Sendable (Owner, Catalogue.Payload) -> Void
    ) -> EventSubscription {
        let storage = self.storage
        return subscribe(event, lane: .mainActor, lifetime: SubscriptionLifetime(owner: owner)) { token in
            .erasing(mainActor: { @MainActor [weak owner] (payload: Catalogue.Payload) in
                guard let owner else { return storage.cancel(token) }
                callback(owner, payload)
            })
        }
    }

    /// Ends every subscription bound to `owner`, synchronously, from any context.
    ///
    /// Works from the owner's own `deinit`:
    ///
    /// ```swift
    /// deinit { bus.cancelAll(ownedBy: self) }
    /// ```
    ///
    /// - Parameter owner: The owner passed to an owner-bound `on`, or the actor passed as `isolation`.
    public nonisolated func cancelAll(ownedBy owner: AnyObject) {
        storage.cancelAll(ownedBy: owner)
    }

    // MARK: Typed

    /// Subscribes `callback` to the event of `payloadType`, on the main actor, handing it the
    /// payload struct directly.
    ///
    /// The compiler pairs the event and the payload type, so there is no pattern matching:
    ///
    /// ```swift
    /// let token = bus.on(BucketingPayload.self) { bucketing in
    ///     print(bucketing.visitorId, bucketing.variationId)
    /// }
    /// ```
    ///
    /// - Parameters:
    ///   - payloadType: The payload type of the event to listen to.
    ///   - replayLatest: Whether to first receive the latest earlier payload, for events whose rule
    ///     is ``ReplayRule/latestOnRequest``.
    ///   - callback: Called on the main actor with each payload.
    /// - Returns: The token that ends the subscription.
    public nonisolated func on<Payload: EventPayload<Catalogue>>(
        _ payloadType: Payload.Type,
        replayLatest: Bool = false,
        callback: @escaping @MainActor @Sendable (Payload) -> Void
    ) -> EventSubscription {
        on(Payload.event, replayLatest: replayLatest) { value in
            if let payload = Payload(value) { callback(payload) }
        }
    }

    /// Subscribes `callback` to the next event of `payloadType` only, on the main actor, handing it
    /// the payload struct.
    ///
    /// - Parameters:
    ///   - payloadType: The payload type of the event to listen to.
    ///   - callback: Called on the main actor with the first payload.
    /// - Returns: The token that ends the subscription before it fires.
    @discardableResult
    public nonisolated func once<Payload: EventPayload<Catalogue>>(
        _ payloadType: Payload.Type,
        callback: @escaping @MainActor @Sendable (Payload) -> Void
    ) -> EventSubscription {
        once(Payload.event) { value in
            if let payload = Payload(value) { callback(payload) }
        }
    }

    /// Subscribes `callback` to the event of `payloadType` for as long as `owner` lives, on the main
    /// actor, handing it the owner and the payload struct.
    ///
    /// - Parameters:
    ///   - payloadType: The payload type of the event to listen to.
    ///   - owner: The object whose lifetime bounds the subscription; held weakly.
    ///   - callback: Called on the main actor with the owner and each payload.
    /// - Returns: The token that ends the subscription earlier.
    @discardableResult
    public nonisolated func on<Payload: EventPayload<Catalogue>, Owner: AnyObject & Sendable>(
        _ payloadType: Payload.Type,
        owner: Owner,
        callback: @escaping @MainActor @Sendable (Owner, Payload) -> Void
    ) -> EventSubscription {
        on(Payload.event, owner: owner) { owner, value in
            if let payload = Payload(value) { callback(owner, payload) }
        }
    }
}
