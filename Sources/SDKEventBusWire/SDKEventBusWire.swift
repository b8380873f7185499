// The wire form is a layer on the engine: its API is written in the core's catalog and payload
// protocols, so `import SDKEventBusWire` gives those too.
@_exported public import SDKEventBusCore
