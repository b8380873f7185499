/// A subscription: what `on`, `once` and every other way of subscribing return, on every bus.
///
/// It is a value, a token that names the subscription and owns nothing. Keep it to end the
/// subscription later with the bus's `off` (which waits until the callback can no longer run) or
/// with ``cancel()`` (synchronous, for a `deinit`); ending it twice, or on another bus, does nothing.
/// Dropping it does not end the subscription: it lives until it is ended, or until its bus shuts
/// down.
///
/// ```swift
/// let subscription = bus.on(.configUpdated) { payload in render(payload) }
/// // …
/// await bus.off(subscription)
/// ```
///
/// To tie subscriptions to an object's lifetime, as with Combine's `AnyCancellable`, store them in a
/// ``SubscriptionSet``: the set owns them, and they end when it goes.
///
/// ```swift
/// @MainActor final class ProfileModel {
///     private var subscriptions = SubscriptionSet()
///
///     init(bus: EventBus) {
///         bus.on(.configUpdated) { payload in … }.store(in: &subscriptions)
///         bus.on(.segments) { payload in … }.store(in: &subscriptions)
///     }   // both end when the model is released
/// }
/// ```
///
/// Two values are equal when they name the same subscription. A `Set<EventSubscription>` is a set
/// of tokens, for code that ends its subscriptions itself: it owns nothing, and a subscription
/// inserted in it runs on after the set is gone.
public struct EventSubscription: Hashable, Sendable, CustomStringConvertible {
    /// The bus that issued the subscription.
    let busID: UInt64
    /// The subscription's id, unique within its bus and never reused.
    let listenerID: UInt64
    /// Where the bus finds the subscription, in constant time.
    let slot: Int
    /// The bus's storage, so that the subscription can end itself.
    let issuer: (any SubscriptionIssuer)?

    init(busID: UInt64, listenerID: UInt64, slot: Int, issuer: (any SubscriptionIssuer)?) {
        self.busID = busID
        self.listenerID = listenerID
        self.slot = slot
        self.issuer = issuer
    }

    /// Ends the subscription, synchronously, from any context: where `off` cannot be awaited, a
    /// `deinit` say.
    ///
    /// On the thread or actor that delivers to the subscription (including inside a callback) the
    /// cut is exact. From elsewhere, a callback that a running delivery pass is calling at this
    /// moment may still finish, and one it has already reached may still run once; await the bus's
    /// `off` to wait for that.
    public func cancel() {
        issuer?.cancel(self)
    }

    /// Stores the subscription in `subscriptions`, which then owns it: the subscription ends when
    /// every set that stores it has let it go.
    ///
    /// Storing it again in the same set holds it once; storing it in another set too keeps it until
    /// both let it go. A subscription that has already ended is not stored.
    ///
    /// ```swift
    /// bus.on(.ready) { _ in … }.store(in: &subscriptions)
    /// ```
    ///
    /// - Parameter subscriptions: The set that keeps the subscription alive.
    public func store(in subscriptions: inout SubscriptionSet) {
        // The subscription's one owner, shared by every set that stores it; none once it has ended.
        guard let handle = issuer?.handle(for: self) else { return }
        subscriptions.hold(handle)
    }

    /// A description for logs, naming the bus and the subscription.
    public var description: String {
        "EventSubscription(bus: \(busID), listener: \(listenerID))"
    }

    /// Whether two values name the same subscription of the same bus.
    public static func == (lhs: EventSubscription, rhs: EventSubscription) -> Bool {
        lhs.busID == rhs.busID && lhs.listenerID == rhs.listenerID
    }

    /// Hashes the bus and the subscription.
    public func hash(into hasher: inout Hasher) {
        hasher.combine(busID)
        hasher.combine(listenerID)
    }
}

/// What a subscription needs from the bus that issued it.
protocol SubscriptionIssuer: AnyObject, Sendable {
    /// Ends the subscription, without waiting for a running pass.
    func cancel(_ subscription: EventSubscription)

    /// The subscription's owner, made on first use; `nil` once it has ended.
    func handle(for subscription: EventSubscription) -> SubscriptionHandle?

    /// Ends the subscription if the handle with identity `handle` is still its owner.
    func handleReleased(_ handle: ObjectIdentifier, owning subscription: EventSubscription)

    /// Whether the subscription has not ended, after ending those whose owner is gone (when a
    /// sweep of them is due).
    func isLive(_ subscription: EventSubscription) -> Bool
}
