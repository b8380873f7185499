/// The handle that owns a subscription, as Combine's `AnyCancellable` owns its subscription.
///
/// The subscription ends when the last reference to its handle is released.
///
/// Each subscription has at most one handle. ``EventListenerToken/subscription`` and
/// ``EventListenerToken/store(in:)`` return or store that same object every time while it lives, and
/// two handles are equal only if they are the same object. So a handle is a value you can store
/// freely: storing it twice in a set, reading ``EventListenerToken/subscription`` again, or keeping
/// it in two sets never ends the subscription; it ends when every holder has let go of it (or at
/// ``cancel()``, or when the bus shuts down).
///
/// ```swift
/// @MainActor final class ProfileModel {
///     private var subscriptions: Set<EventSubscription> = []
///
///     init(bus: EventBus) {
///         bus.on(.configUpdated) { payload in … }.store(in: &subscriptions)
///         bus.on(.segments) { payload in … }.store(in: &subscriptions)
///     }   // both end when the model is released
/// }
/// ```
///
/// A handle is made the first time it is asked for, so a token whose handle nobody asked for ends
/// only through `off`, `cancel` or the bus. Once asked for, the handle is what owns the
/// subscription: release every reference to it and the subscription ends, so `_ = token.subscription`
/// alone ends it, as discarding an `AnyCancellable` would. The handle holds the token and, through
/// it, the bus's subscription storage, never the bus itself: a handle that outlives its bus is inert.
///
/// Ending is synchronous (it runs from `deinit`), with the caveat of ``EventListenerToken/cancel()``
/// for a pass running on another thread at that moment.
public final class EventSubscription: Sendable, Hashable {
    /// The subscription's token, for `off` and for logs.
    public let token: EventListenerToken

    /// A handle for `token`; only the bus makes one, so that each subscription has one owner.
    init(owning token: EventListenerToken) {
        self.token = token
    }

    deinit {
        token.issuer?.handleReleased(ObjectIdentifier(self), owning: token)
    }

    /// Ends the subscription now, synchronously; releasing the handle later does nothing more.
    ///
    /// The same as ``EventListenerToken/cancel()``.
    public func cancel() {
        token.cancel()
    }

    /// Adds the handle to `subscriptions`, which then owns the subscription.
    ///
    /// The set shares it with whoever else holds the handle. Adding it again, to this set or
    /// another, changes nothing and never ends it.
    ///
    /// - Parameter subscriptions: The set that keeps the subscription alive.
    public func store(in subscriptions: inout Set<EventSubscription>) {
        subscriptions.insert(self)
    }

    /// Whether two handles are the same object: a subscription has only one.
    public static func == (lhs: EventSubscription, rhs: EventSubscription) -> Bool {
        lhs === rhs
    }

    /// Hashes the handle's identity.
    public func hash(into hasher: inout Hasher) {
        hasher.combine(ObjectIdentifier(self))
    }
}

extension EventListenerToken {
    /// Adds the subscription's handle to `subscriptions`, so that the subscription ends when the set
    /// (and whoever else holds the handle) releases it.
    ///
    /// The handle is the subscription's one ``subscription``: storing it twice, or in two sets,
    /// never ends the subscription.
    ///
    /// ```swift
    /// bus.on(.ready) { _ in … }.store(in: &subscriptions)
    /// ```
    ///
    /// - Parameter subscriptions: The set that keeps the subscription alive.
    public func store(in subscriptions: inout Set<EventSubscription>) {
        subscription.store(in: &subscriptions)
    }

    /// The handle that owns the subscription: the same object on every read while someone holds it.
    ///
    /// Keep it: when every reference to the handle is released, the subscription ends. For a
    /// subscription that has already ended, a handle that changes nothing.
    public var subscription: EventSubscription {
        issuer?.subscription(for: self) ?? EventSubscription(owning: self)
    }
}
