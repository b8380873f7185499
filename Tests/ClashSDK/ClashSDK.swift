import Foundation
public import SDKEventBusConfig

// An SDK that names its own types as the built-in catalog does (the SDK the package was modelled
// on has these names) and builds them on the core. `CoreClashTests` imports this module and the
// core side by side, as an app that uses the SDK does: any of these names in the core would make
// each use there ambiguous.

/// The SDK's events.
public enum SystemEvent: String, EventCatalog, LifecycleCatalog {
    case ready
    case configUpdated = "config.updated"

    /// Part of the SDK's own API.
    public typealias Payload = EventPayloadValue
    /// Part of the SDK's own API.
    public typealias Config = ProjectConfig

    /// Part of the SDK's own API.
    public var replayRule: ReplayRule { self == .ready ? .sticky : .none }

    /// Part of the SDK's own API.
    public static func readyPayload(_ readiness: Readiness, config: ProjectConfig?) -> EventPayloadValue {
        .ready(ReadyPayload())
    }

    /// Part of the SDK's own API.
    public static func configUpdatedPayload(_ update: ConfigUpdate<ProjectConfig>) -> EventPayloadValue? {
        .configUpdated(ConfigUpdatedPayload(revision: update.current.revision))
    }
}

/// The SDK's payloads.
public enum EventPayloadValue: CatalogPayload, Equatable {
    case ready(ReadyPayload)
    case configUpdated(ConfigUpdatedPayload)

    /// Part of the SDK's own API.
    public var event: SystemEvent {
        switch self {
        case .ready: .ready
        case .configUpdated: .configUpdated
        }
    }
}

/// The payload of ``SystemEvent/ready``.
public struct ReadyPayload: Sendable, Equatable {
    /// Part of the SDK's own API.
    public init() {}
}

/// The payload of ``SystemEvent/configUpdated``.
public struct ConfigUpdatedPayload: Sendable, Equatable {
    /// Part of the SDK's own API.
    public var revision: Int

    /// Part of the SDK's own API.
    public init(revision: Int) {
        self.revision = revision
    }
}

/// The SDK's configuration.
public struct ProjectConfig: RemoteConfig, Codable {
    /// Part of the SDK's own API.
    public var revision: Int

    /// Part of the SDK's own API.
    public init(revision: Int) {
        self.revision = revision
    }
}

/// The SDK's fetch service protocol.
public protocol ConfigFetchService: ConfigFetching where Config == ProjectConfig {}

/// The SDK's bus.
public typealias EventBus = CatalogBus<SystemEvent>
/// The SDK's emitter.
public typealias EventEmitter = CatalogEmitter<SystemEvent>
/// The SDK's store.
public typealias ConfigStore = CatalogConfigStore<SystemEvent>
/// The SDK's facade.
public typealias SDKClient = CatalogClient<SystemEvent>
/// The SDK's settings.
public typealias SDKConfiguration = LifecycleConfiguration<ProjectConfig>

/// The SDK's own token type.
public struct EventListenerToken: Hashable, Sendable {
    /// Part of the SDK's own API.
    public let id: Int

    /// Part of the SDK's own API.
    public init(id: Int) {
        self.id = id
    }
}
