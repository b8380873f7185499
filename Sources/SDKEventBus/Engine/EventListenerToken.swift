/// An opaque handle to one subscription, returned by `on`; pass it to `off` (or ``cancel()``) to
/// unsubscribe.
///
/// Tokens are cheap values: keep them in a `Set` or a property and end the subscription later.
/// Releasing a token ends nothing. A token only ever ends the subscription it was returned for:
/// ending it twice, or passing it to another bus, does nothing. To end a subscription when an
/// object goes away, keep its ``subscription`` handle instead (``store(in:)``).
///
/// ```swift
/// let token = bus.on(.configUpdated) { payload in render(payload) }
/// // …
/// await bus.off(token)
/// ```
public struct EventListenerToken: Hashable, Sendable, CustomStringConvertible {
    /// The bus that issued the token.
    let busID: UInt64
    /// The subscription's id, unique within its bus and never reused.
    let listenerID: UInt64
    /// Where the bus finds the subscription, in constant time.
    let slot: Int
    /// The bus's storage, so that the token can end its subscription by itself.
    let issuer: (any SubscriptionIssuer)?

    init(busID: UInt64, listenerID: UInt64, slot: Int, issuer: (any SubscriptionIssuer)?) {
        self.busID = busID
        self.listenerID = listenerID
        self.slot = slot
        self.issuer = issuer
    }

    /// Ends the subscription, synchronously, from any context; the same as the bus's `cancel`.
    ///
    /// On the thread or actor that delivers to the subscription (including inside a callback) the
    /// cut is exact. From elsewhere, a callback that a running delivery pass is calling at this
    /// moment may still finish, and one it has already reached may still run once; await the
    /// bus's `off` to wait for that.
    public func cancel() {
        issuer?.cancel(self)
    }

    /// A description for logs, naming the bus and the subscription.
    public var description: String {
        "EventListenerToken(bus: \(busID), listener: \(listenerID))"
    }

    /// Whether two tokens name the same subscription of the same bus.
    public static func == (lhs: EventListenerToken, rhs: EventListenerToken) -> Bool {
        lhs.busID == rhs.busID && lhs.listenerID == rhs.listenerID
    }

    /// Hashes the bus and the subscription.
    public func hash(into hasher: inout Hasher) {
        hasher.combine(busID)
        hasher.combine(listenerID)
    }
}

/// What a token needs from the bus that issued it.
protocol SubscriptionIssuer: AnyObject, Sendable {
    /// Ends the subscription, without waiting for a running pass.
    func cancel(_ token: EventListenerToken)

    /// The one handle that owns the subscription.
    func subscription(for token: EventListenerToken) -> EventSubscription

    /// Ends the subscription if the handle with identity `handle` owns it.
    func handleReleased(_ handle: ObjectIdentifier, owning token: EventListenerToken)
}
