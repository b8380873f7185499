import SDKEventBusConfig
import SDKEventBusTesting

// The flag SDK's names for the generic pieces, as the built-in catalog has `EventBus`,
// `ConfigStore` and `SDKClient`.

/// The flag SDK's bus: app code subscribes here.
typealias FlagBus = CatalogBus<FlagEvent>
/// The capability to fire flag events; the SDK keeps it.
typealias FlagEmitter = CatalogEmitter<FlagEvent>
/// Holds the flag set and the readiness gate.
typealias FlagStore = CatalogConfigStore<FlagEvent>
/// The flag SDK's client: the SDK keeps it, with its controls (failing readiness, pausing,
/// shutting down), beside the emitter.
typealias FlagClient = CatalogClient<FlagEvent>
/// What the flag SDK hands app code, `client.reader`: `ready()`, `on`/`off`, the current flag set,
/// refresh; nothing that changes the SDK's state.
typealias FlagReader = CatalogReader<FlagEvent>
/// How the flag SDK loads and refreshes its flag set.
typealias FlagConfiguration = LifecycleConfiguration<FlagSet>
/// A fetch service that plays a script of flag sets and bodies.
typealias ScriptedFlagService = ScriptedConfigFetchService<FlagSet>
