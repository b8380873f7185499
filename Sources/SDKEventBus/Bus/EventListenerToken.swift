/// An opaque handle to one subscription, returned by ``EventBus/on(_:callback:)``; pass it to
/// ``EventBus/off(_:)`` to unsubscribe.
///
/// Tokens are cheap values: keep them in a `Set` or a property and remove the subscription later.
/// A token only ever ends the subscription it was returned for: ending it twice, or passing it to
/// another bus, does nothing.
///
/// ```swift
/// let token = await bus.on(.configUpdated) { payload in render(payload) }
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

    /// A description for logs, naming the bus and the subscription.
    public var description: String {
        "EventListenerToken(bus: \(busID), listener: \(listenerID))"
    }
}
