// The timeline is a layer on the engine: its API is written in the core's bus, so
// `import SDKEventBusTimeline` gives the core too.
@_exported public import SDKEventBusCore
