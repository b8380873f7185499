extension CatalogSubscribing {
    /// The payloads of one or more events as an asynchronous sequence, for code that prefers
    /// `for await` or runs off the main actor (servers, background work).
    ///
    /// The subscription starts when you call this, and the sequence receives events in fire order,
    /// across all the events it covers. Events are handed to the sequence on the firing thread, so
    /// they never pass through the main actor; the consuming task reads them wherever it runs. It
    /// ends when the consuming task is cancelled or the sequence is dropped (the subscription is
    /// then removed), and it finishes when the bus shuts down.
    ///
    /// Nothing fired afterwards is missed *unless the consumer falls behind the buffer*: the
    /// buffering policy then drops events, and the bus reports every one of them as
    /// ``BusDiagnostic/sequenceDropped(event:dropped:policy:)`` (at the first drop, per 256 drops,
    /// and the rest when the sequence ends). Pass ``EventBufferingPolicy/unbounded`` to never drop.
    ///
    /// ```swift
    /// for await payload in bus.stream([.bucketing, .conversion]) {
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
    public func stream(
        _ events: Set<Catalog>,
        bufferingPolicy: EventBufferingPolicy = .default,
        replayLatest: Bool = false
    ) -> AsyncStream<Catalog.Payload> {
        let includes: ((Catalog) -> Bool)? = events.isEmpty ? nil : { events.contains($0) }
        return makeStream(of: includes, bufferingPolicy: bufferingPolicy, replayLatest: replayLatest, transform: { $0 })
    }

    /// The payloads of one event as an asynchronous sequence.
    ///
    /// See ``stream(_:bufferingPolicy:replayLatest:)-(Set<Self.Catalog>,_,_)`` for its guarantees.
    ///
    /// ```swift
    /// for await payload in bus.stream(.configUpdated, replayLatest: true) { … }
    /// ```
    ///
    /// - Parameters:
    ///   - event: The event to receive.
    ///   - bufferingPolicy: What to keep when the consumer falls behind.
    ///   - replayLatest: Whether to first receive the latest earlier payload, for events whose rule
    ///     is ``ReplayRule/latestOnRequest``.
    /// - Returns: The sequence of payloads.
    public func stream(
        _ event: Catalog,
        bufferingPolicy: EventBufferingPolicy = .default,
        replayLatest: Bool = false
    ) -> AsyncStream<Catalog.Payload> {
        makeStream(of: { $0 == event }, bufferingPolicy: bufferingPolicy, replayLatest: replayLatest, transform: { $0 })
    }

    /// The payload structs of one event as an asynchronous sequence.
    ///
    /// ```swift
    /// for await bucketing in bus.stream(of: BucketingPayload.self) {
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
    public func stream<Payload: TypedPayload<Catalog>>(
        of payloadType: Payload.Type,
        bufferingPolicy: EventBufferingPolicy = .default,
        replayLatest: Bool = false
    ) -> AsyncStream<Payload> {
        makeStream(
            of: { $0 == Payload.event }, bufferingPolicy: bufferingPolicy, replayLatest: replayLatest,
            transform: { Payload($0) })
    }

    /// The sequence of the events `includes` accepts, or of none (finished at once) when it is
    /// `nil`.
    private func makeStream<Element: Sendable>(
        of includes: ((Catalog) -> Bool)?,
        bufferingPolicy: EventBufferingPolicy,
        replayLatest: Bool,
        transform: @escaping @Sendable (Catalog.Payload) -> Element?
    ) -> AsyncStream<Element> {
        let bus = self.bus
        let storage = bus.storage
        let (stream, continuation) = AsyncStream.makeStream(
            of: Element.self,
            bufferingPolicy: bufferingPolicy.streamPolicy(for: Element.self)
        )
        guard let includes else {
            continuation.finish()  // nothing can ever arrive
            return stream
        }
        let drops = DropReporter(policy: bufferingPolicy, diagnostics: storage.reporter)
        // Ending any one of the subscriptions (shutdown) finishes the sequence.
        let lifetime = SubscriptionLifetime(onEnd: { continuation.finish() })
        // Subscribe in catalog order so that the sequence's subscription order is deterministic.
        let tokens = bus.index.events.filter(includes).map { event in
            bus.subscribe(event, lane: .immediate, lifetime: lifetime, replayLatest: replayLatest) { _ in
                .erasing { (value: Catalog.Payload) in
                    guard let element = transform(value) else { return }
                    if case .dropped = continuation.yield(element) { drops.record(value.event.rawValue) }
                }
            }
        }
        continuation.onTermination = { _ in
            for token in tokens { storage.cancel(token) }
            drops.finish()
        }
        return stream
    }
}
