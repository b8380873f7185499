extension CatalogSubscribing {
    // MARK: Typed payloads

    /// Subscribes `callback` to the event of `payloadType`, on the main actor, handing it the
    /// payload struct directly.
    ///
    /// The compiler pairs the event and the payload type, so there is no pattern matching:
    ///
    /// ```swift
    /// bus.on(BucketingPayload.self) { bucketing in
    ///     print(bucketing.visitorId, bucketing.variationId)
    /// }
    /// ```
    ///
    /// - Parameters:
    ///   - payloadType: The payload type of the event to listen to.
    ///   - delivery: ``Delivery/mainActor``, the default.
    ///   - replayLatest: Whether to first receive the latest earlier payload, for events whose rule
    ///     is ``ReplayRule/latestOnRequest``.
    ///   - callback: Called on the main actor with each payload.
    /// - Returns: The subscription.
    @discardableResult
    public func on<Payload: TypedPayload<Catalog>>(
        _ payloadType: Payload.Type,
        delivery: Delivery<MainActor> = .mainActor,
        replayLatest: Bool = false,
        callback: @escaping @MainActor @Sendable (Payload) -> Void
    ) -> EventSubscription {
        on(Payload.event, delivery: delivery, replayLatest: replayLatest) { value in
            if let payload = Payload(value) { callback(payload) }
        }
    }

    /// Subscribes `callback` to the event of `payloadType`, on the firing thread, handing it the
    /// payload struct.
    ///
    /// - Parameters:
    ///   - payloadType: The payload type of the event to listen to.
    ///   - delivery: ``Delivery/immediate``.
    ///   - replayLatest: Whether to first receive the latest earlier payload, for events whose rule
    ///     is ``ReplayRule/latestOnRequest``.
    ///   - callback: Called on the firing thread with each payload.
    /// - Returns: The subscription.
    @discardableResult
    public func on<Payload: TypedPayload<Catalog>>(
        _ payloadType: Payload.Type,
        delivery: Delivery<FiringThread>,
        replayLatest: Bool = false,
        callback: @escaping @Sendable (Payload) -> Void
    ) -> EventSubscription {
        on(Payload.event, delivery: delivery, replayLatest: replayLatest) { value in
            if let payload = Payload(value) { callback(payload) }
        }
    }

    /// Subscribes `callback` to the event of `payloadType`, isolated to an actor, handing it the
    /// payload struct.
    ///
    /// - Parameters:
    ///   - payloadType: The payload type of the event to listen to.
    ///   - delivery: ``Delivery/isolated(to:)``; the bus holds the actor weakly.
    ///   - replayLatest: Whether to first receive the latest earlier payload, for events whose rule
    ///     is ``ReplayRule/latestOnRequest``.
    ///   - callback: Called isolated to the actor with the actor and each payload.
    /// - Returns: The subscription.
    @discardableResult
    public func on<Payload: TypedPayload<Catalog>, A: Actor>(
        _ payloadType: Payload.Type,
        delivery: Delivery<A>,
        replayLatest: Bool = false,
        callback: @escaping @Sendable (isolated A, Payload) -> Void
    ) -> EventSubscription {
        on(Payload.event, delivery: delivery, replayLatest: replayLatest) { actor, value in
            if let payload = Payload(value) { callback(actor, payload) }
        }
    }

}
