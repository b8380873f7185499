/// The one object that owns a subscription once a ``SubscriptionSet`` stores it, in the manner of
/// Combine's `AnyCancellable`: the subscription ends when the last set that holds the handle lets
/// it go.
///
/// The registry keeps a weak record of it, so every ``EventSubscription/store(in:)`` of one
/// subscription shares the same handle while it lives, and a stale handle (one the registry no
/// longer records) ends nothing.
final class SubscriptionHandle: Sendable {
    /// The subscription, unowned: the handle is what owns it.
    let subscription: EventSubscription

    init(owning subscription: EventSubscription) {
        self.subscription = subscription
    }

    deinit {
        subscription.issuer?.handleReleased(ObjectIdentifier(self), owning: subscription)
    }
}
