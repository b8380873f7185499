/// One app event with its own subscribers: the per-event channel (`Event<T>`) teams write inside
/// apps, on the same engine as every bus in the package.
///
/// Subscribers are bound to an owner held weakly and receive it, so handlers need no
/// `[weak self]`. ``fire(with:)`` returns at once; ``fireAndWait(with:)`` returns once every
/// handler has run. Each subscriber receives values strictly in the order they were fired, and a
/// consumer of ``values(bufferingPolicy:)`` gets its own ordered stream.
///
/// ```swift
/// let didRefresh = EventChannel<Void>()
/// didRefresh.subscribe(owner: badge) { badge, _ in badge.clear() }    // on the main actor
/// await didRefresh.fireAndWait()                                      // the badge is clear
///
/// let progress = EventChannel<Double>()
/// for await fraction in progress.values() { … }
/// ```
///
/// Like an ``AppEventBus``, and unlike an SDK's ``CatalogueBus``, anyone holding a channel may fire
/// it: keep a channel `private` to the type that fires it and expose only what subscribers need.
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
    /// No one can fire it any more, and subscriptions whose handlers refer back to it (owner-bound)
    /// would otherwise keep it alive. Streams finish; deliveries not yet made are dropped (await
    /// ``flush()`` first).
    deinit {
        storage.shutDown()
    }

    // MARK: Firing

    /// Delivers `value` to every subscriber subscribed now, without waiting for any handler.
    ///
    /// Synchronous and callable from any context: main-actor and actor handlers run later, in fire
    /// order; immediate handlers run on this thread before it returns, unless another thread is
    /// delivering on the channel's immediate lane at that moment, which then runs them next (see
    /// ``ImmediateDelivery``).
    ///
    /// - Parameter value: The value.
    public func fire(with value: Value) {
        withUnsafePointer(to: value) { storage.fire(event: Self.event, payload: $0) }
    }

    /// Delivers `value`, and returns once every handler of it (and of every value fired before)
    /// has run, in every delivery context; or at once if the calling task is cancelled (the value
    /// is delivered all the same).
    ///
    /// - Parameter value: The value.
    public func fireAndWait(with value: Value) async {
        fire(with: value)
        await storage.flush()
    }

    // MARK: Subscribing

    /// Subscribes `handler` for as long as `owner` lives, on the main actor, handing it the owner.
    ///
    /// - Parameters:
    ///   - owner: The object whose lifetime bounds the subscription; held weakly.
    ///   - handler: Called on the main actor with the owner and each value; do not capture `owner`
    ///     strongly in it.
    /// - Returns: The token that ends the subscription earlier.
    @discardableResult
    public func subscribe<Owner: AnyObject & Sendable>(
        owner: Owner,
        handler: @escaping @MainActor @Sendable (Owner, Value) -> Void
    ) -> EventSubscription {
        let storage = self.storage
        return subscribe(lane: .mainActor, lifetime: SubscriptionLifetime(owner: owner)) { token in
            .erasing(mainActor: { @MainActor [weak owner] (value: Value) in
                guard let owner else { return storage.cancel(token) }
                handler(owner, value)
            })
        }
    }

    /// Subscribes `handler`, on the main actor.
    ///
    /// - Parameter handler: Called on the main actor with each value.
    /// - Returns: The token that ends the subscription.
    @discardableResult
    public func subscribe(handler: @escaping @MainActor @Sendable (Value) -> Void) -> EventSubscription {
        subscribe(lane: .mainActor) { _ in .erasing(mainActor: handler) }
    }

    /// Subscribes `handler` for as long as `owner` lives, called on the firing thread before
    /// ``fire(with:)`` returns; see ``ImmediateDelivery`` for how immediate handlers are serialized.
    ///
    /// - Parameters:
    ///   - owner: The object whose lifetime bounds the subscription; held weakly.
    ///   - delivery: ``ImmediateDelivery/immediate``.
    ///   - handler: Called on the firing thread with the owner and each value.
    /// - Returns: The token that ends the subscription earlier.
    @discardableResult
    public func subscribe<Owner: AnyObject & Sendable>(
        owner: Owner,
        delivery: ImmediateDelivery,
        handler: @escaping @Sendable (Owner, Value) -> Void
    ) -> EventSubscription {
        let storage = self.storage
        return subscribe(lane: .immediate, lifetime: SubscriptionLifetime(owner: owner)) { token in
            .erasing { [weak owner] (value: Value) in
                guard let owner else { return storage.cancel(token) }
                handler(owner, value)
            }
        }
    }

    /// Subscribes `handler`, called on the firing thread before ``fire(with:)`` returns.
    ///
    /// - Parameters:
    ///   - delivery: ``ImmediateDelivery/immediate``.
    ///   - handler: Called on the firing thread with each value.
    /// - Returns: The token that ends the subscription.
    @discardableResult
    public func subscribe(
        delivery: ImmediateDelivery,
        handler: @escaping @Sendable (Value) -> Void
    ) -> EventSubscription {
        subscribe(lane: .immediate) { _ in .erasing(handler) }
    }

    /// Subscribes `handler` isolated to `actor`, for as long as `actor` lives.
    ///
    /// - Parameters:
    ///   - actor: The actor the handler is isolated to; held weakly.
    ///   - handler: Called isolated to `actor` with the actor and each value.
    /// - Returns: The token that ends the subscription earlier.
    @discardableResult
    public func subscribe<A: Actor>(
        isolation actor: A,
        handler: @escaping @Sendable (isolated A, Value) -> Void
    ) -> EventSubscription {
        let call = nonisolatedCallback(handler)
        return subscribe(lane: .actor(actor), lifetime: SubscriptionLifetime(owner: actor)) { _ in
            // Called only in a job of the lane's drain, which holds the actor.
            .erasing { [unowned(unsafe) actor] (value: Value) in call(actor, value) }
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
    public func values(bufferingPolicy: EventBufferingPolicy = .default) -> AsyncStream<Value> {
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

    /// Ends the subscription `token` names, and returns once its handler can no longer run.
    ///
    /// Waits only while a delivery pass may still call that handler. If the calling task is
    /// cancelled, before or while it waits, it returns at once with the subscription ended, as after
    /// ``cancel(_:)``: no later value reaches the handler, but a call that a delivery pass is making,
    /// or has already reached, may still run or be finishing.
    ///
    /// - Parameter token: The token a `subscribe` returned.
    public func off(_ token: EventSubscription) async {
        await storage.off(token)
    }

    /// Ends the subscription `token` names, synchronously, from any context (a `deinit`, say).
    ///
    /// - Parameter token: The token a `subscribe` returned.
    public func cancel(_ token: EventSubscription) {
        storage.cancel(token)
    }

    /// Ends every subscription bound to `owner`.
    ///
    /// - Parameter owner: The owner passed to `subscribe(owner:…)`, or the actor passed as
    ///   `isolation`.
    public func cancelAll(ownedBy owner: AnyObject) {
        storage.cancelAll(ownedBy: owner)
    }

    /// Ends every subscription of the channel, at once; the channel stays usable.
    public func cancelAll() {
        storage.cancelAll()
    }

    /// Returns once every value fired before the call has reached its handlers, or at once if the
    /// calling task is cancelled (delivery goes on).
    public func flush() async {
        await storage.flush()
    }

    /// The number of live subscriptions.
    public var subscriberCount: Int {
        storage.listenerCount(for: Self.event)
    }

    private func subscribe(
        lane: LaneSelector,
        lifetime: SubscriptionLifetime? = nil,
        makeCallback: (EventSubscription) -> ErasedCallback
    ) -> EventSubscription {
        storage.subscribe(event: Self.event, lane: lane, lifetime: lifetime, makeCallback: makeCallback)
    }
}

extension EventChannel where Value == Void {
    /// Fires the channel's event, which carries no value.
    public func fire() {
        fire(with: ())
    }

    /// Fires the channel's event, and returns once every handler of it has run.
    public func fireAndWait() async {
        await fireAndWait(with: ())
    }
}
