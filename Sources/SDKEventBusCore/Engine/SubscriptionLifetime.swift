/// What ties a subscription's lifetime to something other than its token: an owner object, and
/// what to do when the subscription ends.
///
/// Most subscriptions have none, so this lives in a separate object that a listener points to only
/// when needed, keeping the common listener small.
package final class SubscriptionLifetime: Sendable {
    /// The owner the subscription is bound to; when it is deallocated the subscription ends.
    weak let owner: (any AnyObject & Sendable)?
    /// The owner's identity, kept so that `cancelAll(ownedBy:)` works from the owner's `deinit`,
    /// when weak references to it are already `nil`.
    let ownerID: ObjectIdentifier?
    /// Runs once, outside the bus's lock, when the subscription ends by any path.
    let onEnd: (@Sendable () -> Void)?

    package init(owner: (any AnyObject & Sendable)? = nil, onEnd: (@Sendable () -> Void)? = nil) {
        self.owner = owner
        self.ownerID = owner.map { ObjectIdentifier($0) }
        self.onEnd = onEnd
    }
}
