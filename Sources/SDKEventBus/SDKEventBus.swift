// The built-in catalogue is a layer on the core: `import SDKEventBus` gives an app both, while an SDK
// with its own catalogue imports only `SDKEventBusCore` and meets none of the names declared here.
@_exported public import SDKEventBusCore
