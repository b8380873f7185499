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
/// The flag SDK's facade: `ready()`, `on`/`off`, the current flag set.
typealias FlagClient = CatalogClient<FlagEvent>
/// How the flag SDK loads and refreshes its flag set.
typealias FlagConfiguration = LifecycleConfiguration<FlagSet>
/// A fetch service that plays a script of flag sets and bodies.
typealias ScriptedFlagService = ScriptedConfigFetchService<FlagSet>
