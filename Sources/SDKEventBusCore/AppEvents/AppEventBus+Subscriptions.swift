extension AppEventBus {
    // MARK: The main actor

    /// Subscribes `handler` to events of `type`, on the main actor.
    ///
    /// ```swift
    /// let token = appBus.subscribe(to: PlaylistShuffled.self) { shuffled in render(shuffled.order) }
    /// ```
    ///
    /// - Parameters:
    ///   - type: The event type.
    ///   - handler: Called on the main actor with each event of `type`.
    /// - Returns: The token that ends the subscription.
    @discardableResult
    public func subscribe<Event: AppEvent>(
        to type: Event.Type,
        handler: @escaping @MainActor @Sendable (Event) -> Void
    ) -> EventSubscription {
        subscribe(type, lane: .mainActor) { _ in .lending(.erasing(mainActor: handler)) }
    }

    /// Subscribes `handler` to events of `type` for as long as `owner` lives, on the main actor,
    /// handing it the owner: no `[weak self]`.
    ///
    /// ```swift
    /// appBus.subscribe(to: UserDidLogin.self, owner: self) { model, login in
    ///     model.reload(for: login.userID)
    /// }
    /// ```
    ///
    /// End all of an owner's subscriptions with ``cancelAll(ownedBy:)``, or those to one type with
    /// ``cancelAll(_:ownedBy:)``.
    ///
    /// - Parameters:
    ///   - type: The event type.
    ///   - owner: The object whose lifetime bounds the subscription; held weakly.
    ///   - handler: Called on the main actor with the owner and each event; do not capture `owner`
    ///     strongly in it.
    /// - Returns: The token that ends the subscription earlier.
    @discardableResult
    public func subscribe<Event: AppEvent, Owner: AnyObject & Sendable>(
        to type: Event.Type,
        owner: Owner,
        handler: @escaping @MainActor @Sendable (Owner, Event) -> Void
    ) -> EventSubscription {
        let storage = self.storage
        return subscribe(type, lane: .mainActor, lifetime: SubscriptionLifetime(owner: owner)) { token in
            .lending(
                .erasing(mainActor: { @MainActor [weak owner] (event: Event) in
                    guard let owner else { return storage.cancel(token) }
                    handler(owner, event)
                })
            )
        }
    }

    /// Subscribes `handler` to the next event of `type` only, on the main actor.
    ///
    /// The handler runs at most once, even when events of `type` are published from several
    /// threads at once.
    ///
    /// - Parameters:
    ///   - type: The event type.
    ///   - handler: Called on the main actor with the first event.
    /// - Returns: The token that ends the subscription before it fires.
    @discardableResult
    public func once<Event: AppEvent>(
        _ type: Event.Type,
        handler: @escaping @MainActor @Sendable (Event) -> Void
    ) -> EventSubscription {
        let storage = self.storage
        return subscribe(type, lane: .mainActor) { token in
            .lending(
                .erasing(mainActor: { @MainActor (event: Event) in
                    handler(event)
                    storage.cancel(token)
                })
            )
        }
    }

    // MARK: Immediate

    /// Subscribes `handler` to events of `type`, called on the publishing thread before `publish`
    /// returns; see ``ImmediateDelivery`` for how immediate handlers are serialized.
    ///
    /// - Parameters:
    ///   - type: The event type.
    ///   - delivery: ``ImmediateDelivery/immediate``.
    ///   - handler: Called on the publishing thread with each event of `type`.
    /// - Returns: The token that ends the subscription.
    @discardableResult
    public func subscribe<Event: AppEvent>(
        to type: Event.Type,
        delivery: ImmediateDelivery,
        handler: @escaping @Sendable (Event) -> Void
    ) -> EventSubscription {
        subscribe(type, lane: .immediate) { _ in .lending(.erasing(handler)) }
    }

    /// Subscribes `handler` to events of `type` for as long as `owner` lives, called on the
    /// publishing thread, handing it the owner.
    ///
    /// - Parameters:
    ///   - type: The event type.
    ///   - owner: The object whose lifetime bounds the subscription; held weakly.
    ///   - delivery: ``ImmediateDelivery/immediate``.
    ///   - handler: Called on the publishing thread with the owner and each event.
    /// - Returns: The token that ends the subscription earlier.
    @discardableResult
    public func subscribe<Event: AppEvent, Owner: AnyObject & Sendable>(
        to type: Event.Type,
        owner: Owner,
        delivery: ImmediateDelivery,
        handler: @escaping @Sendable (Owner, Event) -> Void
    ) -> EventSubscription {
        let storage = self.storage
        return subscribe(type, lane: .immediate, lifetime: SubscriptionLifetime(owner: owner)) { token in
            .lending(
                .erasing { [weak owner] (event: Event) in
                    guard let owner else { return storage.cancel(token) }
                    handler(owner, event)
                }
            )
        }
    }

    /// Subscribes `handler` to the next event of `type` only, called on the publishing thread.
    ///
    /// - Parameters:
    ///   - type: The event type.
    ///   - delivery: ``ImmediateDelivery/immediate``.
    ///   - handler: Called on the publishing thread with the first event.
    /// - Returns: The token that ends the subscription before it fires.
    @discardableResult
    public func once<Event: AppEvent>(
        _ type: Event.Type,
        delivery: ImmediateDelivery,
        handler: @escaping @Sendable (Event) -> Void
    ) -> EventSubscription {
        let storage = self.storage
        return subscribe(type, lane: .immediate) { token in
            .lending(
                .erasing { (event: Event) in
                    handler(event)
                    storage.cancel(token)
                }
            )
        }
    }

    // MARK: An actor

    /// Subscribes `handler` to events of `type`, isolated to `actor`, for as long as `actor` lives.
    ///
    /// - Parameters:
    ///   - type: The event type.
    ///   - actor: The actor the handler is isolated to; held weakly.
    ///   - handler: Called isolated to `actor` with the actor and each event.
    /// - Returns: The token that ends the subscription earlier.
    @discardableResult
    public func subscribe<Event: AppEvent, A: Actor>(
        to type: Event.Type,
        isolation actor: A,
        handler: @escaping @Sendable (isolated A, Event) -> Void
    ) -> EventSubscription {
        subscribe(type, isolation: actor, once: false, handler: handler)
    }

    /// Subscribes `handler` to the next event of `type` only, isolated to `actor`.
    ///
    /// - Parameters:
    ///   - type: The event type.
    ///   - actor: The actor the handler is isolated to; held weakly.
    ///   - handler: Called isolated to `actor` with the actor and the first event.
    /// - Returns: The token that ends the subscription before it fires.
    @discardableResult
    public func once<Event: AppEvent, A: Actor>(
        _ type: Event.Type,
        isolation actor: A,
        handler: @escaping @Sendable (isolated A, Event) -> Void
    ) -> EventSubscription {
        subscribe(type, isolation: actor, once: true, handler: handler)
    }

    private func subscribe<Event: AppEvent, A: Actor>(
        _ type: Event.Type,
        isolation actor: A,
        once: Bool,
        handler: @escaping @Sendable (isolated A, Event) -> Void
    ) -> EventSubscription {
        let call = nonisolatedCallback(handler)
        let storage = self.storage
        return subscribe(type, lane: .actor(actor), lifetime: SubscriptionLifetime(owner: actor)) { token in
            // Called only in a job of the lane's drain, which holds the actor.
            .lending(
                .erasing { [unowned(unsafe) actor] (event: Event) in
                    call(actor, event)
                    if once { storage.cancel(token) }
                }
            )
        }
    }

    // MARK: Streams

    /// The events of `type` as an asynchronous sequence: one subscriber receiving them strictly in
    /// order, without passing through the main actor.
    ///
    /// The subscription starts when you call this and ends when the consuming task is cancelled or
    /// the sequence is dropped. When the consumer falls behind the buffer, the buffering policy
    /// drops events and the bus reports them as ``BusDiagnostic/sequenceDropped(event:dropped:policy:)``.
    ///
    /// ```swift
    /// for await shuffled in appBus.events(of: PlaylistShuffled.self) { … }
    /// ```
    ///
    /// - Parameters:
    ///   - type: The event type.
    ///   - bufferingPolicy: What to keep when the consumer falls behind.
    /// - Returns: The sequence of events.
    public func events<Event: AppEvent>(
        of type: Event.Type,
        bufferingPolicy: EventBufferingPolicy = .default
    ) -> AsyncStream<Event> {
        stream(bufferingPolicy: bufferingPolicy, name: "\(type)") { lane, lifetime, makeCallback in
            self.subscribe(type, lane: lane, lifetime: lifetime, makeCallback: makeCallback)
        } element: { box in
            box.typed(Event.self).value
        }
    }

    /// Every event published on the bus, with when and where it was published: for logging and
    /// debugging.
    ///
    /// ```swift
    /// for await published in appBus.allEvents() {
    ///     logger.debug("\(published)")
    /// }
    /// ```
    ///
    /// - Parameter bufferingPolicy: What to keep when the consumer falls behind.
    /// - Returns: The sequence of published events, in publish order.
    public func allEvents(bufferingPolicy: EventBufferingPolicy = .default) -> AsyncStream<PublishedEvent> {
        hasFeed.set()
        let storage = self.storage
        return stream(bufferingPolicy: bufferingPolicy, name: "all events") { lane, lifetime, makeCallback in
            storage.subscribe(event: Self.allEventsFeed, lane: lane, lifetime: lifetime, makeCallback: makeCallback)
        } element: { box in
            box.published
        }
    }

    private func stream<Element: Sendable>(
        bufferingPolicy: EventBufferingPolicy,
        name: String,
        subscribe: (LaneSelector, SubscriptionLifetime, (EventSubscription) -> ErasedCallback) -> EventSubscription,
        element: @escaping @Sendable (AppEventBox) -> Element
    ) -> AsyncStream<Element> {
        let storage = self.storage
        let (stream, continuation) = AsyncStream.makeStream(
            of: Element.self,
            bufferingPolicy: bufferingPolicy.streamPolicy(for: Element.self)
        )
        let drops = DropReporter(policy: bufferingPolicy, diagnostics: storage.diagnostics)
        let lifetime = SubscriptionLifetime(onEnd: { continuation.finish() })
        let token = subscribe(.immediate, lifetime) { _ in
            .erasing { (box: AppEventBox) in
                if case .dropped = continuation.yield(element(box)) { drops.record(name) }
            }
        }
        continuation.onTermination = { _ in
            storage.cancel(token)
            drops.finish()
        }
        return stream
    }
}
