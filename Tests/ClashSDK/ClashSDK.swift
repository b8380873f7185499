public import Foundation
public import SDKEventBusCore

// An SDK that names its own types as the built-in catalogue does (the SDK the package was modelled
// on has these names) and builds them on the core. `CoreClashTests` imports this module and the
// core side by side, as an app that uses the SDK does: any of these names in the core would make
// each use there ambiguous.

/// The SDK's events.
public enum SystemEvent: String, EventCatalogue, LifecycleCatalogue {
    case ready
    case configUpdated = "config.updated"

    public typealias Payload = EventPayloadValue
    public typealias Config = ProjectConfig

    public var replayRule: ReplayRule { self == .ready ? .sticky : .none }

    public static func readyPayload(_ readiness: Readiness, config: ProjectConfig?) -> EventPayloadValue {
        .ready(ReadyPayload())
    }

    public static func configUpdatedPayload(_ update: ConfigUpdate<ProjectConfig>) -> EventPayloadValue? {
        .configUpdated(ConfigUpdatedPayload(revision: update.current.revision))
    }
}

/// The SDK's payloads.
public enum EventPayloadValue: CataloguePayload, Equatable {
    case ready(ReadyPayload)
    case configUpdated(ConfigUpdatedPayload)

    public var event: SystemEvent {
        switch self {
        case .ready: .ready
        case .configUpdated: .configUpdated
        }
    }
}

/// The payload of ``SystemEvent/ready``.
public struct ReadyPayload: Sendable, Equatable {
    public init() {}
}

/// The payload of ``SystemEvent/configUpdated``.
public struct ConfigUpdatedPayload: Sendable, Equatable {
    public var revision: Int

    public init(revision: Int) {
        self.revision = revision
    }
}

/// The SDK's configuration.
public struct ProjectConfig: RemoteConfiguration, Codable {
    public var revision: Int

    public init(revision: Int) {
        self.revision = revision
    }
}

/// The SDK's fetch service protocol.
public protocol ConfigFetchService: ConfigFetching where Config == ProjectConfig {}

/// The SDK's bus.
public typealias EventBus = CatalogueBus<SystemEvent>
/// The SDK's emitter.
public typealias EventEmitter = CatalogueEmitter<SystemEvent>
/// The SDK's store.
public typealias ConfigStore = CatalogueConfigStore<SystemEvent>
/// The SDK's facade.
public typealias SDKClient = CatalogueClient<SystemEvent>
/// The SDK's settings.
public typealias SDKConfiguration = LifecycleConfiguration<ProjectConfig>

/// The SDK's own token type.
public struct EventListenerToken: Hashable, Sendable {
    public let id: Int

    public init(id: Int) {
        self.id = id
    }
}
