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
/// set holds it once; storing it in two sets keeps it until both let it go. A subscription that
/// ends otherwise (`off`, `cancel()`, a `once` that fired) stays counted until the set lets it go,
/// as a cancelled `AnyCancellable` stays in its set.
///
/// There is no `insert`: the value `on` returns is a token that owns nothing, and only
/// ``EventSubscription/store(in:)`` hands the set the subscription's owner. A
/// `Set<EventSubscription>` is a set of tokens, which owns nothing either.
public struct SubscriptionSet: Sendable {
    /// The owners of the subscriptions, by identity: one per subscription while it is owned.
    private var handles: [ObjectIdentifier: SubscriptionHandle] = [:]

    /// Creates an empty set.
    public init() {}

    /// The number of subscriptions the set holds, ended or not.
    public var count: Int { handles.count }

    /// Whether the set holds no subscription.
    public var isEmpty: Bool { handles.isEmpty }

    /// Lets go of every subscription in the set: each ends, unless another set stores it too.
    ///
    /// Synchronous, from any context, with the guarantee of ``EventSubscription/cancel()``.
    public mutating func removeAll() {
        handles = [:]
    }

    /// Holds `handle`, and with it its subscription; once only.
    mutating func hold(_ handle: SubscriptionHandle) {
        handles[ObjectIdentifier(handle)] = handle
    }
}
