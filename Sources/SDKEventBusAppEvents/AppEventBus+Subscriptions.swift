public import SDKEventBusCore

extension AppEventBus {
    // MARK: Every event

    /// Subscribes `callback` to events of `type`, on the main actor.
    ///
    /// ```swift
    /// let subscription = appBus.on(PlaylistShuffled.self) { shuffled in render(shuffled.order) }
    /// ```
    ///
    /// - Parameters:
    ///   - type: The event type.
    ///   - delivery: ``/SDKEventBusCore/Delivery/mainActor``, the default.
    ///   - callback: Called on the main actor with each event of `type`.
    /// - Returns: The subscription; end it with ``off(_:)`` or ``/SDKEventBusCore/EventSubscription/cancel()``.
    @discardableResult
    public func on<Event: AppEvent>(
        _ type: Event.Type,
        delivery: Delivery<MainActor> = .mainActor,
        callback: @escaping @MainActor @Sendable (Event) -> Void
    ) -> EventSubscription {
        subscribe(type, lane: delivery.lane) { _ in .erasing(mainActor: callback) }
    }

    /// Subscribes `callback` to events of `type`, on the publishing thread before `publish` returns.
    ///
    /// - Parameters:
    ///   - type: The event type.
    ///   - delivery: ``/SDKEventBusCore/Delivery/immediate``.
    ///   - callback: Called on the publishing thread with each event of `type`.
    /// - Returns: The subscription.
    @discardableResult
    public func on<Event: AppEvent>(
        _ type: Event.Type,
        delivery: Delivery<FiringThread>,
        callback: @escaping @Sendable (Event) -> Void
    ) -> EventSubscription {
        subscribe(type, lane: delivery.lane) { _ in .erasing(callback) }
    }

    /// Subscribes `callback` to events of `type`, isolated to an actor, for as long as it lives.
    ///
    /// - Parameters:
    ///   - type: The event type.
    ///   - delivery: ``/SDKEventBusCore/Delivery/isolated(to:)``; the bus holds the actor weakly.
    ///   - callback: Called isolated to the actor with the actor and each event.
    /// - Returns: The subscription.
    @discardableResult
    public func on<Event: AppEvent, A: Actor>(
        _ type: Event.Type,
        delivery: Delivery<A>,
        callback: @escaping @Sendable (isolated A, Event) -> Void
    ) -> EventSubscription {
        subscribe(type, isolatedTo: delivery) { actor, event, _ in callback(actor, event) }
    }

    // MARK: The next event

    /// Subscribes `callback` to the next event of `type` only, on the main actor.
    ///
    /// The callback runs at most once, even when events of `type` are published from several
    /// threads at once.
    ///
    /// - Parameters:
    ///   - type: The event type.
    ///   - delivery: ``/SDKEventBusCore/Delivery/mainActor``, the default.
    ///   - callback: Called on the main actor with the first event.
    /// - Returns: The subscription.
    @discardableResult
    public func once<Event: AppEvent>(
        _ type: Event.Type,
        delivery: Delivery<MainActor> = .mainActor,
        callback: @escaping @MainActor @Sendable (Event) -> Void
    ) -> EventSubscription {
        subscribe(type, lane: delivery.lane) { subscription in
            .erasing(mainActor: { @MainActor (event: Event) in
                callback(event)
                subscription.cancel()
            })
        }
    }

    /// Subscribes `callback` to the next event of `type` only, on the publishing thread.
    ///
    /// - Parameters:
    ///   - type: The event type.
    ///   - delivery: ``/SDKEventBusCore/Delivery/immediate``.
    ///   - callback: Called on the publishing thread with the first event.
    /// - Returns: The subscription.
    @discardableResult
    public func once<Event: AppEvent>(
        _ type: Event.Type,
        delivery: Delivery<FiringThread>,
        callback: @escaping @Sendable (Event) -> Void
    ) -> EventSubscription {
        subscribe(type, lane: delivery.lane) { subscription in
            .erasing { (event: Event) in
                callback(event)
                subscription.cancel()
            }
        }
    }

    /// Subscribes `callback` to the next event of `type` only, isolated to an actor.
    ///
    /// - Parameters:
    ///   - type: The event type.
    ///   - delivery: ``/SDKEventBusCore/Delivery/isolated(to:)``; the bus holds the actor weakly.
    ///   - callback: Called isolated to the actor with the actor and the first event.
    /// - Returns: The subscription.
    @discardableResult
    public func once<Event: AppEvent, A: Actor>(
        _ type: Event.Type,
        delivery: Delivery<A>,
        callback: @escaping @Sendable (isolated A, Event) -> Void
    ) -> EventSubscription {
        subscribe(type, isolatedTo: delivery) { actor, event, end in
            callback(actor, event)
            end()
        }
    }

    // MARK: For as long as an owner lives

    /// Subscribes `callback` to events of `type` for as long as `owner` lives, on the main actor,
    /// handing it the owner: no `[weak self]`.
    ///
    /// ```swift
    /// appBus.on(UserDidLogin.self, owner: self) { model, login in
    ///     model.reload(for: login.userID)
    /// }
    /// ```
    ///
    /// End all of an owner's subscriptions with ``cancelAll(ownedBy:)``, or one of them with the
    /// subscription this returns.
    ///
    /// - Parameters:
    ///   - type: The event type.
    ///   - owner: The object whose lifetime bounds the subscription; held weakly.
    ///   - delivery: ``/SDKEventBusCore/Delivery/mainActor``, the default.
    ///   - callback: Called on the main actor with the owner and each event; do not capture `owner`
    ///     strongly in it.
    /// - Returns: The subscription.
    @discardableResult
    public func on<Event: AppEvent, Owner: AnyObject & Sendable>(
        _ type: Event.Type,
        owner: Owner,
        delivery: Delivery<MainActor> = .mainActor,
        callback: @escaping @MainActor @Sendable (Owner, Event) -> Void
    ) -> EventSubscription {
        subscribe(type, lane: delivery.lane, owner: owner) { subscription in
            .erasing(mainActor: { @MainActor [weak owner] (event: Event) in
                guard let owner else { return subscription.cancel() }
                callback(owner, event)
            })
        }
    }

    /// Subscribes `callback` to events of `type` for as long as `owner` lives, on the publishing
    /// thread, handing it the owner.
    ///
    /// - Parameters:
    ///   - type: The event type.
    ///   - owner: The object whose lifetime bounds the subscription; held weakly.
    ///   - delivery: ``/SDKEventBusCore/Delivery/immediate``.
    ///   - callback: Called on the publishing thread with the owner and each event.
    /// - Returns: The subscription.
    @discardableResult
    public func on<Event: AppEvent, Owner: AnyObject & Sendable>(
        _ type: Event.Type,
        owner: Owner,
        delivery: Delivery<FiringThread>,
        callback: @escaping @Sendable (Owner, Event) -> Void
    ) -> EventSubscription {
        subscribe(type, lane: delivery.lane, owner: owner) { subscription in
            .erasing { [weak owner] (event: Event) in
                guard let owner else { return subscription.cancel() }
                callback(owner, event)
            }
        }
    }

    /// Subscribes to `type` in `lane`, lending each event to the callback `make` makes, given the
    /// subscription (a callback that ends it calls its `cancel()`).
    private func subscribe<Event: AppEvent>(
        _ type: Event.Type,
        lane: LaneSelector,
        owner: (any AnyObject & Sendable)? = nil,
        make: (_ subscription: EventSubscription) -> ErasedCallback
    ) -> EventSubscription {
        subscribe(type, lane: lane, lifetime: owner.map { SubscriptionLifetime(owner: $0) }) { subscription in
            .lending(make(subscription))
        }
    }

    /// Subscribes a callback isolated to the actor of `delivery`, bound to the actor's lifetime (or
    /// to `owner`'s, and the actor's).
    private func subscribe<Event: AppEvent, A: Actor>(
        _ type: Event.Type,
        isolatedTo delivery: Delivery<A>,
        owner: (any AnyObject & Sendable)? = nil,
        callback: @escaping @Sendable (isolated A, Event, _ end: @escaping @Sendable () -> Void) -> Void
    ) -> EventSubscription {
        guard case .actor(let isolation) = delivery.lane, let actor = isolation as? A else {
            preconditionFailure("a Delivery<\(A.self)> names its actor")
        }
        let call = ErasedCallback.nonisolated(callback)
        return subscribe(type, lane: delivery.lane, owner: owner ?? actor) { subscription in
            let end: @Sendable () -> Void = { subscription.cancel() }
            return .erasing(isolatedTo: actor, call, end: end)
        }
    }

    // MARK: Streams

    /// The events of `type` as an asynchronous sequence: one subscriber receiving them strictly in
    /// order, without passing through the main actor.
    ///
    /// The subscription starts when you call this and ends when the consuming task is cancelled or
    /// the sequence is dropped. When the consumer falls behind the buffer, the buffering policy
    /// drops events and the bus reports them as ``/SDKEventBusCore/BusDiagnostic/sequenceDropped(event:dropped:policy:)``.
    ///
    /// ```swift
    /// for await shuffled in appBus.stream(of: PlaylistShuffled.self) { … }
    /// ```
    ///
    /// - Parameters:
    ///   - type: The event type.
    ///   - bufferingPolicy: What to keep when the consumer falls behind.
    /// - Returns: The sequence of events.
    public func stream<Event: AppEvent>(
        of type: Event.Type,
        bufferingPolicy: EventBufferingPolicy = .default
    ) -> AsyncStream<Event> {
        makeStream(bufferingPolicy: bufferingPolicy, name: "\(type)") { lane, lifetime, makeCallback in
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
        // Counted before subscribing, so that the events it receives have their time, and until its
        // subscription ends by any path: publishes read the clock only while a feed is open.
        let status = self.status
        status.feedOpened()
        let storage = self.storage
        let subscribe:
            (LaneSelector, SubscriptionLifetime, (EventSubscription) -> ErasedCallback) -> EventSubscription = {
                lane, lifetime, makeCallback in
                self.endingIfReleased(
                    storage.subscribe(
                        event: Self.allEventsFeed, lane: lane, lifetime: lifetime, makeCallback: makeCallback))
            }
        return makeStream(
            bufferingPolicy: bufferingPolicy,
            name: "all events",
            onEnd: { status.feedEnded() },
            subscribe: subscribe,
            element: { box in box.published }
        )
    }

    /// A stream of what `subscribe` subscribes to, whose subscription ends when the stream does and
    /// the other way round; `onEnd` runs once, when the subscription ends.
    private func makeStream<Element: Sendable>(
        bufferingPolicy: EventBufferingPolicy,
        name: String,
        onEnd: (@Sendable () -> Void)? = nil,
        subscribe: (LaneSelector, SubscriptionLifetime, (EventSubscription) -> ErasedCallback) -> EventSubscription,
        element: @escaping @Sendable (AppEventBox) -> Element
    ) -> AsyncStream<Element> {
        let storage = self.storage
        let (stream, continuation) = AsyncStream.makeStream(
            of: Element.self,
            bufferingPolicy: bufferingPolicy.streamPolicy(for: Element.self)
        )
        let drops = DropReporter(policy: bufferingPolicy, diagnostics: storage.reporter)
        let lifetime = SubscriptionLifetime(onEnd: {
            continuation.finish()
            onEnd?()
        })
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
