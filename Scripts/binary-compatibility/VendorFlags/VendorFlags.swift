// Vendor B: a feature-flag SDK shipped as a binary, on the configuration product. It is built with
// library evolution against today's SDKEventBus and links the package's shared libraries without
// embedding them.

import Foundation
public import SDKEventBusConfig

/// The flag SDK's events.
public enum FlagEvent: String, LifecycleCatalog {
    /// The first flag set is in; sticky, so a late listener still hears it.
    case initialized
    /// A later flag set changed flags.
    case flagsChanged = "flags.changed"

    /// The payloads, one case per event.
    public typealias Payload = FlagPayload
    /// The flag set the SDK fetches.
    public typealias Config = FlagSet

    /// `initialized` is sticky.
    public var replayRule: ReplayRule { self == .initialized ? .sticky : .none }

    /// Announces readiness with the number of flags.
    public static func readyPayload(_ readiness: Readiness, config: FlagSet?) -> FlagPayload {
        .initialized(flagCount: config?.flags.count ?? 0)
    }

    /// Announces the keys whose flags changed.
    public static func configUpdatedPayload(_ update: ConfigUpdate<FlagSet>) -> FlagPayload? {
        let keys = Set(update.current.flags.keys).union(update.previous?.flags.keys ?? [:].keys)
        let changed = keys.filter { update.current.flags[$0] != update.previous?.flags[$0] }.sorted()
        return changed.isEmpty ? nil : .flagsChanged(keys: changed)
    }
}

/// The flag SDK's payloads.
public enum FlagPayload: CatalogPayload, Equatable {
    /// The first flag set is in, with this many flags.
    case initialized(flagCount: Int)
    /// The flags of these keys changed.
    case flagsChanged(keys: [String])

    /// The event each payload belongs to.
    public var event: FlagEvent {
        switch self {
        case .initialized: .initialized
        case .flagsChanged: .flagsChanged
        }
    }
}

/// The flag set, decoded strictly by the package.
public struct FlagSet: RemoteConfig, Codable, Equatable {
    /// Whether each flag is on, by key.
    public var flags: [String: Bool]
}

/// What an app holds of the flag SDK: it listens, awaits readiness and reads flags.
public final class Flags: CatalogSubscribing {
    private let client: CatalogClient<FlagEvent>
    private let emitter: CatalogEmitter<FlagEvent>

    /// The SDK's bus, on which app code listens.
    public var bus: CatalogBus<FlagEvent> { client.bus }

    /// Starts the SDK; `body` stands for the flag set its server serves.
    public init(serving body: String) {
        (client, emitter) = CatalogClient<FlagEvent>.makeClient(
            configuration: LifecycleConfiguration(refreshInterval: nil),
            fetch: { try await FlagSet.decoded(from: Data(body.utf8)) })
    }

    /// Returns once the first flag set is in.
    @discardableResult
    public func ready() async throws -> Readiness { try await client.ready() }

    /// Whether the flag `key` is on.
    public func isEnabled(_ key: String) -> Bool { client.config?.flags[key] ?? false }

    /// Stops the SDK.
    public func shutdown() async { _ = await client.shutdown() }
}
