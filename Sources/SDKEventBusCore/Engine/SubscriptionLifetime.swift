/// What ties a subscription's lifetime to something other than its token: an owner object, and
/// what to do when the subscription ends.
///
/// Most subscriptions have none, so this lives in a separate object that a listener points to only
/// when needed, keeping the common listener small.
///
/// One lifetime serves one subscription: the registry records in it where that subscription is in
/// its owner's list.
package final class SubscriptionLifetime: @unchecked Sendable {
    // @unchecked: `ownerPosition` is written and read only under the lock of the bus the
    // subscription belongs to; the rest is immutable.
    /// The owner the subscription is bound to; when it is deallocated the subscription ends.
    weak let owner: (any AnyObject & Sendable)?
    /// The owner's identity, kept so that `cancelAll(ownedBy:)` works from the owner's `deinit`,
    /// when weak references to it are already `nil`.
    let ownerID: ObjectIdentifier?
    /// Runs once, outside the bus's lock, when the subscription ends by any path.
    let onEnd: (@Sendable () -> Void)?
    /// Where the subscription is in the registry's list of its owner's subscriptions; -1 without an
    /// owner.
    var ownerPosition: Int32 = -1

    package init(owner: (any AnyObject & Sendable)? = nil, onEnd: (@Sendable () -> Void)? = nil) {
        self.owner = owner
        self.ownerID = owner.map { ObjectIdentifier($0) }
        self.onEnd = onEnd
    }
}
