/// The SDK's event bus: app code subscribes to system events with ``on(_:callback:)`` and
/// unsubscribes with ``off(_:)``; the SDK fires through an ``EventEmitter``.
///
/// Callbacks run on the main actor. Every listener receives events in the order they were fired;
/// within one fire, listeners are called in the order they subscribed; a listener receives exactly
/// the events fired while it was subscribed, each once. After ``off(_:)`` returns, its callback
/// never runs again, not even for events already fired, and the bus no longer retains it.
///
/// ```swift
/// let (bus, emitter) = EventBus.makeBus()   // the SDK keeps the emitter
///
/// let token = await bus.on(.ready) { _ in
///     print("SDK is ready")
/// }
/// await emitter.fire(.ready(ReadyPayload()))
/// await bus.flush()                          // "SDK is ready" has been printed
/// await bus.off(token)
/// ```
///
/// > Tip: None of the bus's operations waits for its executor or for callbacks: each takes a short
/// > lock and returns. `EventBus` is an actor so it can be shared across tasks freely.
public actor EventBus {
    nonisolated let storage: BusStorage

    init() {
        storage = BusStorage()
    }

    /// Creates a bus and the capability to fire on it.
    ///
    /// Keep the emitter inside the SDK and give app code the bus: only the holder of the emitter can
    /// fire events.
    ///
    /// ```swift
    /// let (bus, emitter) = EventBus.makeBus()
    /// ```
    ///
    /// - Returns: The bus, and the emitter that fires on it.
    public static func makeBus() -> (bus: EventBus, emitter: EventEmitter) {
        let bus = EventBus()
        return (bus, EventEmitter(storage: bus.storage))
    }

    /// Subscribes `callback` to `event`.
    ///
    /// Every call is an independent subscription, even with the same closure. The listener receives
    /// every event fired from now until it is unsubscribed, on the main actor, in fire order.
    ///
    /// - Parameters:
    ///   - event: The event to listen to.
    ///   - callback: Called on the main actor with each payload of `event`.
    /// - Returns: The token that ends this subscription with ``off(_:)`` or ``cancel(_:)``.
    public nonisolated(nonsending) func on(
        _ event: SystemEvent,
        callback: @escaping @MainActor @Sendable (EventPayloadValue) -> Void
    ) async -> EventListenerToken {
        storage.subscribe(event, callback: callback)
    }

    /// Ends the subscription `token` names.
    ///
    /// After `off` returns the callback is never invoked again, even for events fired earlier and
    /// not yet delivered, and the bus no longer retains it. Calling `off` twice, with an unknown
    /// token, or with another bus's token does nothing.
    ///
    /// Off the main actor, while deliveries are pending or running, `off` also waits one
    /// main-actor hop, so that no callback a running pass reached can begin after `off` returns.
    /// Otherwise it takes a short lock and returns.
    ///
    /// - Parameter token: The token ``on(_:callback:)`` returned.
    public nonisolated(nonsending) func off(_ token: EventListenerToken) async {
        await storage.unsubscribe(token, isolation: #isolation)
    }

    /// Ends the subscription `token` names, synchronously, from any context.
    ///
    /// The same as ``off(_:)`` where you cannot `await`, for example in a `deinit`:
    ///
    /// ```swift
    /// deinit { bus.cancel(token) }
    /// ```
    ///
    /// On the main actor (including inside a callback) the cut is exact. From another thread,
    /// while a delivery pass is running on the main actor, a callback that pass had already
    /// reached may still run once, and the pass releases the callback when it ends; use ``off(_:)``
    /// or ``flush()`` to wait for it.
    ///
    /// - Parameter token: The token ``on(_:callback:)`` returned.
    public nonisolated func cancel(_ token: EventListenerToken) {
        storage.unsubscribe(token)
    }

    /// Returns once every event fired before the call has been delivered to its listeners.
    ///
    /// For tests and orderly shutdown: await delivery instead of sleeping.
    ///
    /// ```swift
    /// await emitter.fire(.ready(ReadyPayload()))
    /// await bus.flush()   // every `.ready` listener has run
    /// ```
    public nonisolated(nonsending) func flush() async {
        await storage.flush()
    }

    /// The number of live subscriptions to `event`.
    ///
    /// - Parameter event: The event to count listeners of.
    /// - Returns: How many subscriptions to `event` have not ended.
    public nonisolated(nonsending) func listenerCount(for event: SystemEvent) async -> Int {
        storage.listenerCount(for: event)
    }

    /// Fires `payload` from a component inside this package.
    ///
    /// SDK authors outside the package fire through the ``EventEmitter`` from ``makeBus()``.
    package nonisolated func fire(_ payload: EventPayloadValue) {
        storage.enqueue(payload)
    }

    /// Subscribes synchronously, for components inside this package (and tests) that cannot await.
    package nonisolated func subscribe(
        _ event: SystemEvent,
        callback: @escaping @MainActor @Sendable (EventPayloadValue) -> Void
    ) -> EventListenerToken {
        storage.subscribe(event, callback: callback)
    }
}
