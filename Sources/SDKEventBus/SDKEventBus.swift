// The built-in catalog is a layer on every product: `import SDKEventBus` gives an app the engine,
// the wire form, the configuration half and the app buses, while an SDK with its own catalog
// imports only what it takes (`SDKEventBusCore` for events alone, `SDKEventBusConfig` with the
// configuration half) and meets none of the names declared here.

@_exported public import SDKEventBusAppEvents
@_exported public import SDKEventBusConfig
@_exported public import SDKEventBusCore
@_exported public import SDKEventBusWire
