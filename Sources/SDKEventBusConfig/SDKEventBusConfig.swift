// The configuration half is a layer on the engine and the wire form: its API is written in the
// core's catalog buses, emitters and subscriptions and in the wire form's `JSONDecodingError`, so
// `import SDKEventBusConfig` gives an SDK all three. It declares none of the built-in catalog's
// names, so it adds no clash beside an SDK that declares its own `SystemEvent` or `ConfigStore`.
@_exported public import SDKEventBusCore
@_exported public import SDKEventBusWire
