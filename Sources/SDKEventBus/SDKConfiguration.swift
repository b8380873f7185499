public import SDKEventBusConfig

/// How the built-in client loads and refreshes its configuration; see `LifecycleConfiguration`.
public typealias SDKConfiguration = LifecycleConfiguration<ProjectConfig>
