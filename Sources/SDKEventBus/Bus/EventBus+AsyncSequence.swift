extension EventBus {
    /// The payloads of one or more events as an asynchronous sequence, for code that is not on the
    /// main actor (servers, background work) or prefers `for await`.
    ///
    /// The subscription starts when you call this, so nothing fired afterwards is missed, and the
    /// sequence receives events in fire order, across all the events it covers. It ends when the
    /// consuming task is cancelled or the sequence is dropped (the subscription is then removed),
    /// and it finishes when the bus shuts down. Delivery passes through the main actor, like
    /// callbacks, so its ordering is exactly theirs.
    ///
    /// ```swift
    /// for await payload in bus.events([.bucketing, .conversion]) {
    ///     analytics.forward(payload)
    /// }
    /// ```
    ///
    /// - Parameters:
    ///   - events: The events to receive.
    ///   - bufferingPolicy: What to keep when the consumer falls behind.
    ///   - replayLatest: Whether to first receive the latest earlier payload of events whose rule is
    ///     ``ReplayRule/latestOnRequest``; sticky events always replay.
    /// - Returns: The sequence of payloads.
    public nonisolated func events(
        _ events: Set<SystemEvent>,
        bufferingPolicy: EventBufferingPolicy = .default,
        replayLatest: Bool = false
    ) -> AsyncStream<EventPayloadValue> {
        stream(of: events, bufferingPolicy: bufferingPolicy, replayLatest: replayLatest) { $0 }
    }

    /// The payloads of one event as an asynchronous sequence.
    ///
    /// See ``events(_:bufferingPolicy:replayLatest:)-(Set<SystemEvent>,_,_)`` for its guarantees.
    ///
    /// ```swift
    /// for await payload in bus.events(.configUpdated, replayLatest: true) { … }
    /// ```
    ///
    /// - Parameters:
    ///   - event: The event to receive.
    ///   - bufferingPolicy: What to keep when the consumer falls behind.
    ///   - replayLatest: Whether to first receive the latest earlier payload, for events whose rule
    ///     is ``ReplayRule/latestOnRequest``.
    /// - Returns: The sequence of payloads.
    public nonisolated func events(
        _ event: SystemEvent,
        bufferingPolicy: EventBufferingPolicy = .default,
        replayLatest: Bool = false
    ) -> AsyncStream<EventPayloadValue> {
        events([event], bufferingPolicy: bufferingPolicy, replayLatest: replayLatest)
    }

    /// The payload structs of one event as an asynchronous sequence.
    ///
    /// ```swift
    /// for await bucketing in bus.events(of: BucketingPayload.self) {
    ///     print(bucketing.variationId)
    /// }
    /// ```
    ///
    /// - Parameters:
    ///   - payloadType: The payload type of the event to receive.
    ///   - bufferingPolicy: What to keep when the consumer falls behind.
    ///   - replayLatest: Whether to first receive the latest earlier payload, for events whose rule
    ///     is ``ReplayRule/latestOnRequest``.
    /// - Returns: The sequence of payload structs.
    public nonisolated func events<Payload: EventPayload>(
        of payloadType: Payload.Type,
        bufferingPolicy: EventBufferingPolicy = .default,
        replayLatest: Bool = false
    ) -> AsyncStream<Payload> {
        stream(of: [Payload.event], bufferingPolicy: bufferingPolicy, replayLatest: replayLatest) { Payload($0) }
    }

    private nonisolated func stream<Element: Sendable>(
        of events: Set<SystemEvent>,
        bufferingPolicy: EventBufferingPolicy,
        replayLatest: Bool,
        transform: @escaping @Sendable (EventPayloadValue) -> Element?
    ) -> AsyncStream<Element> {
        let storage = self.storage
        let (stream, continuation) = AsyncStream.makeStream(
            of: Element.self,
            bufferingPolicy: bufferingPolicy.streamPolicy(for: Element.self)
        )
        guard !events.isEmpty else {
            continuation.finish()  // nothing can ever arrive
            return stream
        }
        // Ending any one of the subscriptions (shutdown) finishes the sequence.
        let lifetime = SubscriptionLifetime(onEnd: { continuation.finish() })
        // Subscribe in catalogue order so that the sequence's subscription order is deterministic.
        let tokens = SystemEvent.allCases.filter(events.contains).map { event in
            storage.subscribe(event, lifetime: lifetime, replayLatest: replayLatest) { _ in
                { value in
                    if let element = transform(value) { continuation.yield(element) }
                }
            }
        }
        continuation.onTermination = { _ in
            for token in tokens { storage.unsubscribe(token) }
        }
        return stream
    }
}
