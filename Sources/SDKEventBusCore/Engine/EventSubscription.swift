/// A subscription: what `on`, `once` and every other way of subscribing return, on every bus.
///
/// It is a value. Keep it to end the subscription later with the bus's `off` (which waits until the
/// callback can no longer run) or with ``cancel()`` (synchronous, for a `deinit`); ending it twice,
/// or on another bus, does nothing. Dropping it does not end the subscription: it lives until it is
/// ended, or until its bus shuts down.
///
/// ```swift
/// let subscription = bus.on(.configUpdated) { payload in render(payload) }
/// // …
/// await bus.off(subscription)
/// ```
///
/// To tie subscriptions to an object's lifetime, store them in a set, as Combine's `AnyCancellable`:
/// a set that holds a subscription through ``store(in:)`` owns it, and the subscription ends when
/// the last set that owns it lets it go (the set is released, or the subscription removed from it).
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
/// Every subscription has one owner object, made the first time it is stored and shared by every
/// later ``store(in:)`` while it lives. So storing a subscription twice, or in two sets, never ends
/// it: it ends when every set that stores it has let go. Two values are equal when they name the
/// same subscription, whether they own it or not.
///
/// > Tip: Insert with ``store(in:)``, not `insert(_:)`: a value the bus returned does not own its
/// > subscription, and a set that holds only that value leaves the subscription running when it goes.
public struct EventSubscription: Hashable, Sendable, CustomStringConvertible {
    /// The bus that issued the subscription.
    let busID: UInt64
    /// The subscription's id, unique within its bus and never reused.
    let listenerID: UInt64
    /// Where the bus finds the subscription, in constant time.
    let slot: Int
    /// The bus's storage, so that the subscription can end itself.
    let issuer: (any SubscriptionIssuer)?
    /// For a copy that owns the subscription (one ``store(in:)`` made), the owner.
    private let owner: SubscriptionHandle?

    init(busID: UInt64, listenerID: UInt64, slot: Int, issuer: (any SubscriptionIssuer)?) {
        self.busID = busID
        self.listenerID = listenerID
        self.slot = slot
        self.issuer = issuer
        owner = nil
    }

    private init(_ subscription: EventSubscription, owner: SubscriptionHandle) {
        busID = subscription.busID
        listenerID = subscription.listenerID
        slot = subscription.slot
        issuer = subscription.issuer
        self.owner = owner
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
    /// every set that stores it has let go of it.
    ///
    /// Storing it again, in this set or another, never ends it. It replaces an equal value that was
    /// inserted without `store(in:)`, so the set owns the subscription either way.
    ///
    /// ```swift
    /// bus.on(.ready) { _ in … }.store(in: &subscriptions)
    /// ```
    ///
    /// - Parameter subscriptions: The set that keeps the subscription alive.
    public func store(in subscriptions: inout Set<EventSubscription>) {
        guard let owner = owner ?? issuer?.handle(for: self) else {
            // Ended: nothing to own.
            subscriptions.insert(self)
            return
        }
        subscriptions.update(with: EventSubscription(self, owner: owner))
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
}
