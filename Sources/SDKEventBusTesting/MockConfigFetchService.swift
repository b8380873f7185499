public import SDKEventBus

/// The built-in configuration's scripted fetch service; see ``ScriptedConfigFetchService``.
public typealias MockConfigFetchService = ScriptedConfigFetchService<ProjectConfig>

extension ScriptedConfigFetchService: ConfigFetchService where Config == ProjectConfig {}
