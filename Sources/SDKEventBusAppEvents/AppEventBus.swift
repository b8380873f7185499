import Foundation
public import SDKEventBusCore

/// An app-level event bus: app code publishes any ``AppEvent`` and subscribes to events by type,
/// with the guarantees of the SDK's catalog bus, on the same engine.
///
/// It is the bus teams write again and again inside apps — a lock-guarded dictionary of handlers
/// by type — without its holes: each subscriber receives events in the order they were published,
/// subscribers of one delivery context in the order they subscribed, each event exactly once; after
/// ``off(_:)`` returns a handler never runs again, even for events already published; handlers may
/// publish, subscribe and unsubscribe without deadlock; and ended subscriptions are released at
/// once, not when someone next publishes.
///
/// ```swift
/// struct UserDidLogin: AppEvent { let userID: String }
///
/// let appBus = AppEventBus()
/// appBus.on(UserDidLogin.self, owner: profileModel) { model, login in
///     model.reload(for: login.userID)           // on the main actor; no [weak self]
/// }
/// appBus.publish(UserDidLogin(userID: "42"))
/// ```
///
/// Unlike an SDK's ``/SDKEventBusCore/CatalogBus``, anyone holding an app bus may publish on it: there is no
/// emitter. Keep the two apart — an SDK's events stay spoof-proof on its own catalog bus.
///
/// Every subscription says where its callback runs with `delivery`: on the main actor (the
/// default), on the publishing thread (``/SDKEventBusCore/Delivery/immediate``), or isolated to an actor
/// (``/SDKEventBusCore/Delivery/isolated(to:)``).
public final class AppEventBus: Sendable {
    let storage: BusStorage
    /// What the bus is called, for diagnostics and a ``AppEventBusContainer``.
    let name: String
    /// Whether an all-events feed is open (a publish reads the clock only then), and where the bus
    /// stands with the containers.
    let status: AppBusStatus

    /// Creates a bus.
    ///
    /// - Parameters:
    ///   - name: What the bus is called, for diagnostics.
    ///   - diagnostics: Called with what the bus notices (a lane falling behind, a stream dropping
    ///     events), on the thread where it happens.
    public init(name: String = "app", diagnostics: (@Sendable (BusDiagnostic) -> Void)? = nil) {
        self.name = name
        status = AppBusStatus()
        storage = BusStorage(
            layout: .of(AppEventBox.self), replayRules: [.none], diagnostics: diagnostics,
            eventName: { "event \($0)" })
    }

    /// Ends every subscription when the bus is released.
    ///
    /// No one can publish on it any more, and subscriptions whose handlers refer back to the bus (one-
    /// shot, owner-bound) would otherwise keep it alive. Streams finish; deliveries not yet made are
    /// dropped (await ``flush()`` first to have them made).
    deinit {
        storage.shutDown()
    }

    /// The event index of the all-events feed.
    static let allEventsFeed = 0

    // MARK: Publishing

    /// Publishes `event` to every subscriber of its type subscribed now, and to the all-events feed.
    ///
    /// Synchronous and callable from any context, and it never waits for handlers: main-actor and
    /// actor handlers run later, in publish order; immediate handlers run on this thread before it
    /// returns, unless another thread is delivering on the bus's immediate lane at that moment, which
    /// then runs them next (see ``/SDKEventBusCore/Delivery``). Publishes from one thread keep their order;
    /// publishes from different threads are ordered by when they reach the bus.
    ///
    /// - Parameters:
    ///   - event: The event.
    ///   - source: Where it comes from, for the all-events feed; `nil` (the default) names the
    ///     call's file and line.
    ///   - fileID: The file of the call; leave the default.
    ///   - line: The line of the call; leave the default.
    public func publish<Event: AppEvent>(
        _ event: Event,
        source: String? = nil,
        fileID: StaticString = #fileID,
        line: UInt = #line
    ) {
        let box: AppEventBox = TypedAppEventBox(
            event,
            date: status.hasOpenFeed ? Date() : nil,
            source: source,
            fileID: fileID,
            line: line
        )
        withUnsafePointer(to: box) { box in
            storage.fire(key: ObjectIdentifier(Event.self), alsoEvent: Self.allEventsFeed, payload: box)
        }
    }

    /// Publishes `event` and returns once every handler of it (and of every event published
    /// before) has run, in every delivery context; or at once if the calling task is cancelled
    /// (the event is published, and delivered, all the same).
    ///
    /// - Parameters:
    ///   - event: The event.
    ///   - source: Where it comes from, for the all-events feed; `nil` (the default) names the
    ///     call's file and line.
    ///   - fileID: The file of the call; leave the default.
    ///   - line: The line of the call; leave the default.
    public func publishAndWait<Event: AppEvent>(
        _ event: Event,
        source: String? = nil,
        fileID: StaticString = #fileID,
        line: UInt = #line
    ) async {
        publish(event, source: source, fileID: fileID, line: line)
        await flush()
    }

    // MARK: Ending subscriptions

    /// Ends a subscription, and returns once its callback can no longer run.
    ///
    /// Waits only while a delivery pass may still call that callback; never for a busy executor. If
    /// the calling task is cancelled, before or while it waits, it returns at once with the
    /// subscription ended, as after ``/SDKEventBusCore/EventSubscription/cancel()``: no later event reaches the
    /// callback, but a call that a delivery pass is making, or has already reached, may still run or
    /// be finishing.
    ///
    /// - Parameter subscription: What `on` or `once` returned.
    public func off(_ subscription: EventSubscription) async {
        await storage.off(subscription)
    }

    /// Ends every subscription bound to `owner`, of every event type.
    ///
    /// - Parameter owner: The owner passed to `on(_:owner:…)`, or the actor passed to
    ///   ``/SDKEventBusCore/Delivery/isolated(to:)``.
    public func cancelAll(ownedBy owner: AnyObject) {
        storage.cancelAll(ownedBy: owner)
    }

    /// Ends every subscription of the bus, at once; the bus stays usable.
    ///
    /// What a screen or a feature does when it goes away with its own bus (see
    /// ``AppEventBusContainer``).
    public func cancelAll() {
        storage.cancelAll()
    }

    /// Returns once every event published before the call has reached its handlers, or at once if
    /// the calling task is cancelled (delivery goes on).
    public func flush() async {
        await storage.flush()
    }

    /// The number of live subscriptions to `type`.
    ///
    /// - Parameter type: The event type.
    /// - Returns: How many subscriptions to `type` have not ended.
    public func listenerCount<Event: AppEvent>(for type: Event.Type) -> Int {
        storage.listenerCount(forKey: ObjectIdentifier(type))
    }

    /// Subscribes to `type` in `lane`; the one path every subscription method takes.
    func subscribe<Event: AppEvent>(
        _ type: Event.Type,
        lane: LaneSelector,
        lifetime: SubscriptionLifetime?,
        makeCallback: (EventSubscription) -> ErasedCallback
    ) -> EventSubscription {
        endingIfReleased(
            storage.subscribe(key: ObjectIdentifier(type), lane: lane, lifetime: lifetime, makeCallback: makeCallback))
    }

    /// Ends `subscription`, just made, if the bus was released from its container's scope, and
    /// reports it: no one publishes on the bus for that scope any more.
    ///
    /// Read after subscribing: a container marks the bus released before it ends the bus's
    /// subscriptions, so a subscription that the ending missed, having come after it, sees the mark.
    func endingIfReleased(_ subscription: EventSubscription) -> EventSubscription {
        if status.isReleased { endSubscriptionMadeAfterRelease(subscription) }
        return subscription
    }

    /// Ends a subscription made on a released bus, and reports it.
    @inline(never)
    private func endSubscriptionMadeAfterRelease(_ subscription: EventSubscription) {
        storage.cancel(subscription)
        storage.report(.subscribedToReleasedBus(bus: name))
    }
}

extension AppEventBox {
    /// The box as the box of an event of type `Event`, without a dynamic cast.
    ///
    /// A subscription to a type only ever receives boxes of that type.
    @inline(__always)
    func typed<Event: AppEvent>(_: Event.Type) -> TypedAppEventBox<Event> {
        unsafeDowncast(self, to: TypedAppEventBox<Event>.self)
    }
}
