/// One app event with its own subscribers: the per-event channel (`Event<T>`) teams write inside
/// apps, on the same engine as every bus in the package.
///
/// It has the verbs of every bus: `on`, `once` and `on(owner:…)` with a `delivery` (see
/// ``Delivery``), ``off(_:)``, ``flush()``, ``listenerCount`` and ``events(bufferingPolicy:)``.
/// ``publish(_:)`` returns at once; ``publishAndWait(_:)`` returns once every callback has run.
/// Each subscriber receives values strictly in the order they were published.
///
/// ```swift
/// let didRefresh = EventChannel<Void>()
/// didRefresh.on(owner: badge) { badge, _ in badge.clear() }    // on the main actor
/// await didRefresh.publishAndWait()                            // the badge is clear
///
/// let progress = EventChannel<Double>()
/// for await fraction in progress.events() { … }
/// ```
///
/// Like an ``AppEventBus``, and unlike an SDK's ``CatalogueBus``, anyone holding a channel may
/// publish on it: keep a channel `private` to the type that publishes and expose only what
/// subscribers need.
public final class EventChannel<Value: Sendable>: Sendable {
    let storage: BusStorage

    /// The channel's one event.
    private static var event: Int { 0 }

    /// Creates a channel.
    ///
    /// - Parameter diagnostics: Called with what the channel notices (a lane falling behind, a
    ///   stream dropping values), on the thread where it happens.
    public init(diagnostics: (@Sendable (BusDiagnostic) -> Void)? = nil) {
        storage = BusStorage(layout: .of(Value.self), replayRules: [.none], diagnostics: diagnostics)
    }

    /// Ends every subscription when the channel is released.
    ///
    /// No one can publish on it any more, and subscriptions whose callbacks refer back to it (owner-bound)
    /// would otherwise keep it alive. Streams finish; deliveries not yet made are dropped (await
    /// ``flush()`` first).
    deinit {
        storage.shutDown()
    }

    // MARK: Publishing

    /// Delivers `value` to every subscriber subscribed now, without waiting for any callback.
    ///
    /// Synchronous and callable from any context: main-actor and actor callbacks run later, in
    /// publish order; immediate callbacks run on this thread before it returns, unless another
    /// thread is delivering on the channel's immediate lane at that moment, which then runs them
    /// next (see ``Delivery``).
    ///
    /// - Parameter value: The value.
    public func publish(_ value: Value) {
        withUnsafePointer(to: value) { storage.fire(event: Self.event, payload: $0) }
    }

    /// Delivers `value`, and returns once every callback of it (and of every value published
    /// before) has run, in every delivery context; or at once if the calling task is cancelled (the
    /// value is delivered all the same).
    ///
    /// - Parameter value: The value.
    public func publishAndWait(_ value: Value) async {
        publish(value)
        await storage.flush()
    }

    // MARK: Every value

    /// Subscribes `callback`, on the main actor.
    ///
    /// - Parameters:
    ///   - delivery: ``Delivery/mainActor``, the default.
    ///   - callback: Called on the main actor with each value.
    /// - Returns: The subscription; end it with ``off(_:)`` or ``EventSubscription/cancel()``.
    @discardableResult
    public func on(
        delivery: Delivery<MainActor> = .mainActor,
        callback: @escaping @MainActor @Sendable (Value) -> Void
    ) -> EventSubscription {
        subscribe(lane: delivery.lane) { _ in .erasing(mainActor: callback) }
    }

    /// Subscribes `callback`, on the publishing thread before `publish` returns.
    ///
    /// - Parameters:
    ///   - delivery: ``Delivery/immediate``.
    ///   - callback: Called on the publishing thread with each value.
    /// - Returns: The subscription.
    @discardableResult
    public func on(
        delivery: Delivery<Never>,
        callback: @escaping @Sendable (Value) -> Void
    ) -> EventSubscription {
        subscribe(lane: delivery.lane) { _ in .erasing(callback) }
    }

    /// Subscribes `callback`, isolated to an actor, for as long as it lives.
    ///
    /// - Parameters:
    ///   - delivery: ``Delivery/isolated(to:)``; the channel holds the actor weakly.
    ///   - callback: Called isolated to the actor with the actor and each value.
    /// - Returns: The subscription.
    @discardableResult
    public func on<A: Actor>(
        delivery: Delivery<A>,
        callback: @escaping @Sendable (isolated A, Value) -> Void
    ) -> EventSubscription {
        subscribe(isolatedTo: delivery) { actor, value, _ in callback(actor, value) }
    }

    // MARK: The next value

    /// Subscribes `callback` to the next value only, on the main actor.
    ///
    /// - Parameters:
    ///   - delivery: ``Delivery/mainActor``, the default.
    ///   - callback: Called on the main actor with the first value.
    /// - Returns: The subscription.
    @discardableResult
    public func once(
        delivery: Delivery<MainActor> = .mainActor,
        callback: @escaping @MainActor @Sendable (Value) -> Void
    ) -> EventSubscription {
        subscribe(lane: delivery.lane) { end in
            .erasing(mainActor: { @MainActor (value: Value) in
                callback(value)
                end()
            })
        }
    }

    /// Subscribes `callback` to the next value only, on the publishing thread.
    ///
    /// - Parameters:
    ///   - delivery: ``Delivery/immediate``.
    ///   - callback: Called on the publishing thread with the first value.
    /// - Returns: The subscription.
    @discardableResult
    public func once(
        delivery: Delivery<Never>,
        callback: @escaping @Sendable (Value) -> Void
    ) -> EventSubscription {
        subscribe(lane: delivery.lane) { end in
            .erasing { (value: Value) in
                callback(value)
                end()
            }
        }
    }

    /// Subscribes `callback` to the next value only, isolated to an actor.
    ///
    /// - Parameters:
    ///   - delivery: ``Delivery/isolated(to:)``; the channel holds the actor weakly.
    ///   - callback: Called isolated to the actor with the actor and the first value.
    /// - Returns: The subscription.
    @discardableResult
    public func once<A: Actor>(
        delivery: Delivery<A>,
        callback: @escaping @Sendable (isolated A, Value) -> Void
    ) -> EventSubscription {
        subscribe(isolatedTo: delivery) { actor, value, end in
            callback(actor, value)
            end()
        }
    }

    // MARK: For as long as an owner lives

    /// Subscribes `callback` for as long as `owner` lives, on the main actor, handing it the owner.
    ///
    /// - Parameters:
    ///   - owner: The object whose lifetime bounds the subscription; held weakly.
    ///   - delivery: ``Delivery/mainActor``, the default.
    ///   - callback: Called on the main actor with the owner and each value; do not capture `owner`
    ///     strongly in it.
    /// - Returns: The subscription.
    @discardableResult
    public func on<Owner: AnyObject & Sendable>(
        owner: Owner,
        delivery: Delivery<MainActor> = .mainActor,
        callback: @escaping @MainActor @Sendable (Owner, Value) -> Void
    ) -> EventSubscription {
        subscribe(lane: delivery.lane, owner: owner) { end in
            .erasing(mainActor: { @MainActor [weak owner] (value: Value) in
                guard let owner else { return end() }
                callback(owner, value)
            })
        }
    }

    /// Subscribes `callback` for as long as `owner` lives, on the publishing thread, handing it the
    /// owner.
    ///
    /// - Parameters:
    ///   - owner: The object whose lifetime bounds the subscription; held weakly.
    ///   - delivery: ``Delivery/immediate``.
    ///   - callback: Called on the publishing thread with the owner and each value.
    /// - Returns: The subscription.
    @discardableResult
    public func on<Owner: AnyObject & Sendable>(
        owner: Owner,
        delivery: Delivery<Never>,
        callback: @escaping @Sendable (Owner, Value) -> Void
    ) -> EventSubscription {
        subscribe(lane: delivery.lane, owner: owner) { end in
            .erasing { [weak owner] (value: Value) in
                guard let owner else { return end() }
                callback(owner, value)
            }
        }
    }

    /// Subscribes `callback` for as long as both `owner` and the actor live, isolated to the actor.
    ///
    /// - Parameters:
    ///   - owner: The object whose lifetime bounds the subscription; held weakly.
    ///   - delivery: ``Delivery/isolated(to:)``; the channel holds the actor weakly.
    ///   - callback: Called isolated to the actor with the actor, the owner and each value.
    /// - Returns: The subscription.
    @discardableResult
    public func on<Owner: AnyObject & Sendable, A: Actor>(
        owner: Owner,
        delivery: Delivery<A>,
        callback: @escaping @Sendable (isolated A, Owner, Value) -> Void
    ) -> EventSubscription {
        subscribe(isolatedTo: delivery, owner: owner) { [weak owner] actor, value, end in
            guard let owner else { return end() }
            callback(actor, owner, value)
        }
    }

    /// The values as an asynchronous sequence: one subscriber of its own, receiving them strictly
    /// in order, without passing through the main actor.
    ///
    /// The subscription starts when you call this and ends when the consuming task is cancelled or
    /// the sequence is dropped. When the consumer falls behind the buffer, the buffering policy
    /// drops values and the channel reports them as
    /// ``BusDiagnostic/sequenceDropped(event:dropped:policy:)``.
    ///
    /// - Parameter bufferingPolicy: What to keep when the consumer falls behind.
    /// - Returns: The sequence of values.
    public func events(bufferingPolicy: EventBufferingPolicy = .default) -> AsyncStream<Value> {
        let storage = self.storage
        let (stream, continuation) = AsyncStream.makeStream(
            of: Value.self,
            bufferingPolicy: bufferingPolicy.streamPolicy(for: Value.self)
        )
        let drops = DropReporter(policy: bufferingPolicy, diagnostics: storage.diagnostics)
        let name = "\(Value.self)"
        let token = subscribe(lane: .immediate, lifetime: SubscriptionLifetime(onEnd: { continuation.finish() })) { _ in
            .erasing { (value: Value) in
                if case .dropped = continuation.yield(value) { drops.record(name) }
            }
        }
        continuation.onTermination = { _ in
            storage.cancel(token)
            drops.finish()
        }
        return stream
    }

    // MARK: Ending subscriptions

    /// Ends a subscription, and returns once its callback can no longer run.
    ///
    /// Waits only while a delivery pass may still call that callback. If the calling task is
    /// cancelled, before or while it waits, it returns at once with the subscription ended, as after
    /// ``EventSubscription/cancel()``: no later value reaches the callback, but a call that a
    /// delivery pass is making, or has already reached, may still run or be finishing.
    ///
    /// - Parameter subscription: What `on` or `once` returned.
    public func off(_ subscription: EventSubscription) async {
        await storage.off(subscription)
    }

    /// Ends every subscription bound to `owner`.
    ///
    /// - Parameter owner: The owner passed to `on(owner:…)`, or the actor passed to
    ///   ``Delivery/isolated(to:)``.
    public func cancelAll(ownedBy owner: AnyObject) {
        storage.cancelAll(ownedBy: owner)
    }

    /// Ends every subscription of the channel, at once; the channel stays usable.
    public func cancelAll() {
        storage.cancelAll()
    }

    /// Returns once every value published before the call has reached its callbacks, or at once if
    /// the calling task is cancelled (delivery goes on).
    public func flush() async {
        await storage.flush()
    }

    /// The number of live subscriptions.
    public var listenerCount: Int {
        storage.listenerCount(for: Self.event)
    }

    /// Subscribes in `lane` the callback `make` makes, given a function that ends the subscription.
    private func subscribe(
        lane: LaneSelector,
        owner: (any AnyObject & Sendable)? = nil,
        make: (_ end: @escaping @Sendable () -> Void) -> ErasedCallback
    ) -> EventSubscription {
        let storage = self.storage
        return subscribe(lane: lane, lifetime: owner.map { SubscriptionLifetime(owner: $0) }) { subscription in
            make { storage.cancel(subscription) }
        }
    }

    /// Subscribes a callback isolated to the actor of `delivery`, bound to the actor's lifetime (or
    /// to `owner`'s, and the actor's).
    private func subscribe<A: Actor>(
        isolatedTo delivery: Delivery<A>,
        owner: (any AnyObject & Sendable)? = nil,
        callback: @escaping @Sendable (isolated A, Value, _ end: @escaping @Sendable () -> Void) -> Void
    ) -> EventSubscription {
        guard case .actor(let isolation) = delivery.lane, let actor = isolation as? A else {
            preconditionFailure("a Delivery<\(A.self)> names its actor")
        }
        let call = nonisolatedCallback(callback)
        return subscribe(lane: delivery.lane, owner: owner ?? actor) { end in
            // Called only in a job of the lane's drain, which holds the actor.
            .erasing { [unowned(unsafe) actor] (value: Value) in call(actor, value, end) }
        }
    }

    private func subscribe(
        lane: LaneSelector,
        lifetime: SubscriptionLifetime?,
        makeCallback: (EventSubscription) -> ErasedCallback
    ) -> EventSubscription {
        storage.subscribe(event: Self.event, lane: lane, lifetime: lifetime, makeCallback: makeCallback)
    }
}

extension EventChannel where Value == Void {
    /// Publishes the channel's event, which carries no value.
    public func publish() {
        publish(())
    }

    /// Publishes the channel's event, and returns once every callback of it has run.
    public func publishAndWait() async {
        await publishAndWait(())
    }
}
