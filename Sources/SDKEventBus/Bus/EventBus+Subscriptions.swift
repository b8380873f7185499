extension EventBus {
    // MARK: One-shot

    /// Subscribes `callback` to the next `event` only.
    ///
    /// The callback runs at most once, even when several events are already queued; the
    /// subscription then ends by itself. The token ends it earlier.
    ///
    /// ```swift
    /// _ = await bus.once(.ready) { _ in print("ready") }
    /// ```
    ///
    /// - Parameters:
    ///   - event: The event to listen to.
    ///   - callback: Called on the main actor with the first payload of `event`.
    /// - Returns: The token that ends the subscription before it fires.
    public nonisolated(nonsending) func once(
        _ event: SystemEvent,
        callback: @escaping @MainActor @Sendable (EventPayloadValue) -> Void
    ) async -> EventListenerToken {
        let storage = self.storage
        return storage.subscribe(event) { token in
            { payload in
                storage.unsubscribe(token)
                callback(payload)
            }
        }
    }

    // MARK: Replay

    /// Subscribes `callback` to `event`, choosing whether it first receives the latest payload
    /// fired before it subscribed.
    ///
    /// Only events whose ``SystemEvent/replayRule`` is ``ReplayRule/latestOnRequest``
    /// (``SystemEvent/configUpdated``) honour `replayLatest`; sticky events (``SystemEvent/ready``)
    /// always replay.
    ///
    /// ```swift
    /// let token = await bus.on(.configUpdated, replayLatest: true) { payload in render(payload) }
    /// ```
    ///
    /// - Parameters:
    ///   - event: The event to listen to.
    ///   - replayLatest: Whether to deliver the latest earlier payload first, once, to this listener.
    ///   - callback: Called on the main actor with each payload of `event`.
    /// - Returns: The token that ends the subscription.
    public nonisolated(nonsending) func on(
        _ event: SystemEvent,
        replayLatest: Bool,
        callback: @escaping @MainActor @Sendable (EventPayloadValue) -> Void
    ) async -> EventListenerToken {
        storage.subscribe(event, replayLatest: replayLatest) { _ in callback }
    }

    // MARK: Owner-bound

    /// Subscribes `callback` to `event` for as long as `owner` lives.
    ///
    /// The bus holds `owner` weakly and hands it to the callback, so there is no `[weak self]`
    /// dance. Once `owner` is deallocated the callback never runs again and the subscription is
    /// removed without anyone calling ``off(_:)``. End all of an owner's subscriptions at once with
    /// ``cancelAll(ownedBy:)``.
    ///
    /// ```swift
    /// await bus.on(.configUpdated, owner: self) { model, payload in
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
    public nonisolated(nonsending) func on<Owner: AnyObject & Sendable>(
        _ event: SystemEvent,
        owner: Owner,
        callback: @escaping @MainActor @Sendable (Owner, EventPayloadValue) -> Void
    ) async -> EventListenerToken {
        let storage = self.storage
        return storage.subscribe(event, lifetime: SubscriptionLifetime(owner: owner)) { token in
            { [weak owner] payload in
                guard let owner else {
                    storage.unsubscribe(token)
                    return
                }
                callback(owner, payload)
            }
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
    /// - Parameter owner: The owner passed to ``on(_:owner:callback:)-(SystemEvent,_,_)``.
    public nonisolated func cancelAll(ownedBy owner: AnyObject) {
        storage.unsubscribeAll(ownedBy: owner)
    }

    // MARK: Typed

    /// Subscribes `callback` to the event of `payloadType`, handing it the payload struct directly.
    ///
    /// The compiler pairs the event and the payload type, so there is no pattern matching:
    ///
    /// ```swift
    /// let token = await bus.on(BucketingPayload.self) { bucketing in
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
    public nonisolated(nonsending) func on<Payload: EventPayload>(
        _ payloadType: Payload.Type,
        replayLatest: Bool = false,
        callback: @escaping @MainActor @Sendable (Payload) -> Void
    ) async -> EventListenerToken {
        storage.subscribe(Payload.event, replayLatest: replayLatest) { _ in
            { value in
                if let payload = Payload(value) { callback(payload) }
            }
        }
    }

    /// Subscribes `callback` to the next event of `payloadType` only, handing it the payload struct.
    ///
    /// - Parameters:
    ///   - payloadType: The payload type of the event to listen to.
    ///   - callback: Called on the main actor with the first payload.
    /// - Returns: The token that ends the subscription before it fires.
    public nonisolated(nonsending) func once<Payload: EventPayload>(
        _ payloadType: Payload.Type,
        callback: @escaping @MainActor @Sendable (Payload) -> Void
    ) async -> EventListenerToken {
        await once(Payload.event) { value in
            if let payload = Payload(value) { callback(payload) }
        }
    }

    /// Subscribes `callback` to the event of `payloadType` for as long as `owner` lives, handing it
    /// the owner and the payload struct.
    ///
    /// - Parameters:
    ///   - payloadType: The payload type of the event to listen to.
    ///   - owner: The object whose lifetime bounds the subscription; held weakly.
    ///   - callback: Called on the main actor with the owner and each payload.
    /// - Returns: The token that ends the subscription earlier.
    @discardableResult
    public nonisolated(nonsending) func on<Payload: EventPayload, Owner: AnyObject & Sendable>(
        _ payloadType: Payload.Type,
        owner: Owner,
        callback: @escaping @MainActor @Sendable (Owner, Payload) -> Void
    ) async -> EventListenerToken {
        await on(Payload.event, owner: owner) { owner, value in
            if let payload = Payload(value) { callback(owner, payload) }
        }
    }
}

extension EventEmitter {
    /// Fires a payload struct to every listener of its event that is subscribed now.
    ///
    /// The same as ``fire(_:)-(EventPayloadValue)`` with the struct's ``EventPayload/payloadValue``.
    ///
    /// ```swift
    /// await emitter.fire(ConversionPayload(goalId: "g1", visitorId: "v1"))
    /// ```
    ///
    /// - Parameter payload: The event's payload.
    public nonisolated(nonsending) func fire<Payload: EventPayload>(_ payload: Payload) async {
        storage.enqueue(payload.payloadValue)
    }
}
