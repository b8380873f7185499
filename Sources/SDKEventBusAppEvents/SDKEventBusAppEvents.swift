// App buses are a layer on the core: their API is written in the core's `Delivery`,
// `EventSubscription`, `EventBufferingPolicy` and `BusDiagnostic`, so `import SDKEventBusAppEvents`
// gives app code those too. The core declares none of the built-in catalog's names, so this adds
// no clash beside an SDK that declares its own `SystemEvent` or `EventBus`.
@_exported public import SDKEventBusCore
