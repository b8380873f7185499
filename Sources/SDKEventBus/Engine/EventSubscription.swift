/// A subscription that ends when it is released, in the spirit of Combine's `AnyCancellable`.
///
/// Keep one in a property, or many in a `Set`, and the subscriptions live exactly as long as their
/// holder: releasing the set (or calling `removeAll()` on it) ends them all at once.
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
/// Ending is synchronous (it runs from `deinit`), with the caveat of ``EventListenerToken/cancel()``
/// for a pass running on another thread at that moment.
public final class EventSubscription: Sendable, Hashable {
    /// The subscription's token.
    public let token: EventListenerToken

    /// Wraps a token so that releasing the wrapper ends the subscription.
    ///
    /// - Parameter token: The token a bus returned.
    public init(_ token: EventListenerToken) {
        self.token = token
    }

    deinit {
        token.cancel()
    }

    /// Ends the subscription now; releasing the wrapper later does nothing more.
    public func cancel() {
        token.cancel()
    }

    /// Whether two wrappers hold the same subscription.
    public static func == (lhs: EventSubscription, rhs: EventSubscription) -> Bool {
        lhs.token == rhs.token
    }

    /// Hashes the subscription.
    public func hash(into hasher: inout Hasher) {
        hasher.combine(token)
    }
}

extension EventListenerToken {
    /// Wraps the token in an ``EventSubscription`` and adds it to `subscriptions`, so that the
    /// subscription ends when the set releases it.
    ///
    /// ```swift
    /// bus.on(.ready) { _ in … }.store(in: &subscriptions)
    /// ```
    ///
    /// - Parameter subscriptions: The set that owns the subscription.
    public func store(in subscriptions: inout Set<EventSubscription>) {
        subscriptions.insert(EventSubscription(self))
    }

    /// The token wrapped in an ``EventSubscription`` that ends the subscription when released.
    public var subscription: EventSubscription { EventSubscription(self) }
}
