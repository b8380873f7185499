/// A set that owns subscriptions, as a `Set<AnyCancellable>` owns Combine's cancellables: the
/// subscriptions stored in it end when the set goes.
///
/// Store a subscription with ``EventSubscription/store(in:)``, from any bus (a catalog bus, a
/// client, an SDK's facade, an app bus):
///
/// ```swift
/// @MainActor final class ProfileModel {
///     private var subscriptions = SubscriptionSet()
///
///     init(sdk: SDKClient) {
///         sdk.on(.configUpdated) { payload in … }.store(in: &subscriptions)
///         sdk.on(.segments) { payload in … }.store(in: &subscriptions)
///     }   // both end when the model, and with it the set, is released
/// }
/// ```
///
/// It is a value, and its copies share the subscriptions: a subscription ends when no copy of any
/// set that stores it is left, or after ``removeAll()`` in each. Storing a subscription twice in one
/// set holds it once; storing it in two sets keeps it until both let it go.
///
/// A subscription that ends otherwise (`off`, `cancel()`, a `once` that fired, its owner gone) is
/// let go by the set at a later ``EventSubscription/store(in:)``: whenever the set has doubled since
/// it last looked, storing drops the ended ones. So a long-lived model that stores a `once` per
/// screen holds at most about twice the subscriptions still live (and 32), and storing stays
/// constant time on average. Until then an ended one is still counted, as a cancelled
/// `AnyCancellable` stays in its set.
///
/// There is no `insert`: the value `on` returns is a token that owns nothing, and only
/// ``EventSubscription/store(in:)`` hands the set the subscription's owner. A
/// `Set<EventSubscription>` is a set of tokens, which owns nothing either.
public struct SubscriptionSet: Sendable {
    /// The owners of the subscriptions, by identity: one per subscription while it is owned.
    private var handles: [ObjectIdentifier: SubscriptionHandle] = [:]
    /// The count at which storing next drops the ended subscriptions: twice what was left then.
    private var nextSweep = Self.firstSweep

    /// The count at which storing first drops the ended subscriptions.
    static let firstSweep = 32

    /// Creates an empty set.
    public init() {}

    /// The number of subscriptions the set holds: the live ones, and ended ones not yet dropped.
    public var count: Int { handles.count }

    /// Whether the set holds no subscription.
    public var isEmpty: Bool { handles.isEmpty }

    /// Lets go of every subscription in the set: each ends, unless another set stores it too.
    ///
    /// Synchronous, from any context, with the guarantee of ``EventSubscription/cancel()``.
    public mutating func removeAll() {
        handles = [:]
        nextSweep = Self.firstSweep
    }

    /// Holds `handle`, and with it its subscription; once only.
    ///
    /// Drops the ended subscriptions once the set has doubled since it last did.
    mutating func hold(_ handle: SubscriptionHandle) {
        handles[ObjectIdentifier(handle)] = handle
        if handles.count >= nextSweep { dropEnded() }
    }

    /// Lets go of the subscriptions that have ended: each costs its bus's lock once.
    @inline(never)
    private mutating func dropEnded() {
        // Not `filter`: its specialization for this dictionary alone is 2 KB of machine code.
        for (id, handle) in handles where !(handle.subscription.issuer?.isLive(handle.subscription) ?? false) {
            handles[id] = nil
        }
        nextSweep = max(Self.firstSweep, handles.count * 2)
    }
}
