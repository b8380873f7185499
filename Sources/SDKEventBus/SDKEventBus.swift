@_exported public import SDKEventBusAppEvents
// The built-in catalogue is a layer on the core, the wire form and the app buses: `import
// SDKEventBus` gives an app all four, while an SDK with its own catalogue imports only `SDKEventBusCore` (and, for a JSON
// wire form, `SDKEventBusWire`) and meets none of the names declared here.
@_exported public import SDKEventBusCore
@_exported public import SDKEventBusWire
