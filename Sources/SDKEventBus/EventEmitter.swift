public import SDKEventBusConfig

/// The capability to fire the built-in events on one ``EventBus``; see ``/SDKEventBusCore/CatalogEmitter``.
///
/// ```swift
/// let (bus, emitter) = EventBus.makeBus()
/// emitter.fire(.conversion(ConversionPayload(goalId: "g1", visitorId: "v1")))
/// ```
public typealias EventEmitter = CatalogEmitter<SystemEvent>
