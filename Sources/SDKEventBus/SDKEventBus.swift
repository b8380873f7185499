// The built-in catalogue is a layer on the core and the wire form: `import SDKEventBus` gives an app
// all three, while an SDK with its own catalogue imports only `SDKEventBusCore` (and, for a JSON
// wire form, `SDKEventBusWire`) and meets none of the names declared here.
@_exported public import SDKEventBusCore
@_exported public import SDKEventBusWire
