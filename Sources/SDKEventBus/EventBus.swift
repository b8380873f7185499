public import SDKEventBusConfig

/// The built-in catalog's event bus: app code subscribes to ``SystemEvent``s with `on` and
/// unsubscribes with `off`; the SDK fires through an ``EventEmitter``.
///
/// Everything ``/SDKEventBusCore/CatalogBus`` offers, for the built-in events:
///
/// ```swift
/// let (bus, emitter) = EventBus.makeBus()   // the SDK keeps the emitter
///
/// let token = bus.on(.ready) { _ in
///     print("SDK is ready")
/// }
/// emitter.fire(.ready(ReadyPayload()))
/// await bus.flush()                          // "SDK is ready" has been printed
/// await bus.off(token)
/// ```
public typealias EventBus = CatalogBus<SystemEvent>
