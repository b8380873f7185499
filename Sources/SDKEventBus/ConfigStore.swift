public import SDKEventBusConfig

/// The built-in catalog's config store: holds the ``ProjectConfig`` and the readiness gate, and
/// fires ``SystemEvent/ready`` and ``SystemEvent/configUpdated``.
///
/// ```swift
/// let (bus, emitter) = EventBus.makeBus()
/// let store = ConfigStore(emitter: emitter)
/// ```
public typealias ConfigStore = CatalogConfigStore<SystemEvent>
