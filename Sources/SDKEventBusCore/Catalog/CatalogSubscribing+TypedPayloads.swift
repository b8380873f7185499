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
    ///   - file: Where `on` is called; a slow-listener report and a timeline name it. Leave the
    ///     default.
    ///   - line: The line of the call; leave the default.
    ///   - callback: Called on the main actor with each payload.
    /// - Returns: The subscription.
    @discardableResult
    public func on<Payload: TypedPayload<Catalog>>(
        _ payloadType: Payload.Type,
        delivery: Delivery<MainActor> = .mainActor,
        replayLatest: Bool = false,
        file: StaticString = #fileID,
        line: UInt = #line,
        callback: @escaping @MainActor @Sendable (Payload) -> Void
    ) -> EventSubscription {
        on(Payload.event, delivery: delivery, replayLatest: replayLatest, file: file, line: line) { value in
            if let payload = Payload(value) { callback(payload) }
        }
    }

    /// Subscribes `callback` to the event of `payloadType`, on the main actor, handing it the
    /// payload struct, without naming the call site.
    ///
    /// The form without `file` and `line`, kept for the binaries built against 1.0.0 that call it:
    /// source code calls the one that names its call site.
    ///
    /// - Parameters:
    ///   - payloadType: The payload type of the event to listen to.
    ///   - delivery: ``Delivery/mainActor``, the default.
    ///   - replayLatest: Whether to first receive the latest earlier payload, for events whose rule
    ///     is ``ReplayRule/latestOnRequest``.
    ///   - callback: Called on the main actor with each payload.
    /// - Returns: The subscription.
    @discardableResult
    @_disfavoredOverload
    public func on<Payload: TypedPayload<Catalog>>(
        _ payloadType: Payload.Type,
        delivery: Delivery<MainActor> = .mainActor,
        replayLatest: Bool = false,
        callback: @escaping @MainActor @Sendable (Payload) -> Void
    ) -> EventSubscription {
        on(payloadType, delivery: delivery, replayLatest: replayLatest, file: "", line: 0, callback: callback)
    }

    /// Subscribes `callback` to the event of `payloadType`, on the firing thread, handing it the
    /// payload struct.
    ///
    /// - Parameters:
    ///   - payloadType: The payload type of the event to listen to.
    ///   - delivery: ``Delivery/immediate``.
    ///   - replayLatest: Whether to first receive the latest earlier payload, for events whose rule
    ///     is ``ReplayRule/latestOnRequest``.
    ///   - file: Where `on` is called; a slow-listener report and a timeline name it. Leave the
    ///     default.
    ///   - line: The line of the call; leave the default.
    ///   - callback: Called on the firing thread with each payload.
    /// - Returns: The subscription.
    @discardableResult
    public func on<Payload: TypedPayload<Catalog>>(
        _ payloadType: Payload.Type,
        delivery: Delivery<FiringThread>,
        replayLatest: Bool = false,
        file: StaticString = #fileID,
        line: UInt = #line,
        callback: @escaping @Sendable (Payload) -> Void
    ) -> EventSubscription {
        on(Payload.event, delivery: delivery, replayLatest: replayLatest, file: file, line: line) { value in
            if let payload = Payload(value) { callback(payload) }
        }
    }

    /// Subscribes `callback` to the event of `payloadType`, on the firing thread, handing it the
    /// payload struct, without naming the call site.
    ///
    /// The form without `file` and `line`, kept for the binaries built against 1.0.0 that call it:
    /// source code calls the one that names its call site.
    ///
    /// - Parameters:
    ///   - payloadType: The payload type of the event to listen to.
    ///   - delivery: ``Delivery/immediate``.
    ///   - replayLatest: Whether to first receive the latest earlier payload, for events whose rule
    ///     is ``ReplayRule/latestOnRequest``.
    ///   - callback: Called on the firing thread with each payload.
    /// - Returns: The subscription.
    @discardableResult
    @_disfavoredOverload
    public func on<Payload: TypedPayload<Catalog>>(
        _ payloadType: Payload.Type,
        delivery: Delivery<FiringThread>,
        replayLatest: Bool = false,
        callback: @escaping @Sendable (Payload) -> Void
    ) -> EventSubscription {
        on(payloadType, delivery: delivery, replayLatest: replayLatest, file: "", line: 0, callback: callback)
    }

    /// Subscribes `callback` to the event of `payloadType`, isolated to an actor, handing it the
    /// payload struct.
    ///
    /// - Parameters:
    ///   - payloadType: The payload type of the event to listen to.
    ///   - delivery: ``Delivery/isolated(to:)``; the bus holds the actor weakly.
    ///   - replayLatest: Whether to first receive the latest earlier payload, for events whose rule
    ///     is ``ReplayRule/latestOnRequest``.
    ///   - file: Where `on` is called; a slow-listener report and a timeline name it. Leave the
    ///     default.
    ///   - line: The line of the call; leave the default.
    ///   - callback: Called isolated to the actor with the actor and each payload.
    /// - Returns: The subscription.
    @discardableResult
    public func on<Payload: TypedPayload<Catalog>, A: Actor>(
        _ payloadType: Payload.Type,
        delivery: Delivery<A>,
        replayLatest: Bool = false,
        file: StaticString = #fileID,
        line: UInt = #line,
        callback: @escaping @Sendable (isolated A, Payload) -> Void
    ) -> EventSubscription {
        on(Payload.event, delivery: delivery, replayLatest: replayLatest, file: file, line: line) { actor, value in
            if let payload = Payload(value) { callback(actor, payload) }
        }
    }

    /// Subscribes `callback` to the event of `payloadType`, isolated to an actor, handing it the
    /// payload struct, without naming the call site.
    ///
    /// The form without `file` and `line`, kept for the binaries built against 1.0.0 that call it:
    /// source code calls the one that names its call site.
    ///
    /// - Parameters:
    ///   - payloadType: The payload type of the event to listen to.
    ///   - delivery: ``Delivery/isolated(to:)``; the bus holds the actor weakly.
    ///   - replayLatest: Whether to first receive the latest earlier payload, for events whose rule
    ///     is ``ReplayRule/latestOnRequest``.
    ///   - callback: Called isolated to the actor with the actor and each payload.
    /// - Returns: The subscription.
    @discardableResult
    @_disfavoredOverload
    public func on<Payload: TypedPayload<Catalog>, A: Actor>(
        _ payloadType: Payload.Type,
        delivery: Delivery<A>,
        replayLatest: Bool = false,
        callback: @escaping @Sendable (isolated A, Payload) -> Void
    ) -> EventSubscription {
        on(payloadType, delivery: delivery, replayLatest: replayLatest, file: "", line: 0, callback: callback)
    }

}
