public import SDKEventBusConfig

/// An opaque handle to one subscription, returned by `on`; pass it to `off` (or call `cancel()`) to
/// unsubscribe.
///
/// The built-in catalog's name for `EventSubscription`.
///
/// ```swift
/// let token = bus.on(.configUpdated) { payload in render(payload) }
/// // …
/// await bus.off(token)
/// ```
public typealias EventListenerToken = EventSubscription
