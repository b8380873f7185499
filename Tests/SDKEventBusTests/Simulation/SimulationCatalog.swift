import Foundation
import SDKEventBusConfig
import SDKEventBusCore

/// The simulated SDK's configuration: a version number, unique to each configuration the harness
/// hands out, so that every announcement names the one it announces.
struct SimulatedConfig: RemoteConfig, Codable, Equatable {
    var version: Int
}

/// The simulated SDK's catalog: the ready event and the update event, as every SDK declares them.
enum SimulatedEvent: String, LifecycleCatalog {
    case ready
    case updated

    typealias Payload = SimulatedPayload
    typealias Config = SimulatedConfig

    static func readyPayload(_ readiness: Readiness, config: SimulatedConfig?) -> SimulatedPayload {
        .ready(readiness, version: config?.version)
    }

    static func configUpdatedPayload(_ update: ConfigUpdate<SimulatedConfig>) -> SimulatedPayload? {
        .updated(previous: update.previous?.version, current: update.current.version)
    }
}

/// What the simulated SDK announces.
enum SimulatedPayload: CatalogPayload {
    case ready(Readiness, version: Int?)
    case updated(previous: Int?, current: Int)

    var event: SimulatedEvent {
        switch self {
        case .ready: .ready
        case .updated: .updated
        }
    }
}

/// A fetch error of the simulated service, with the advice the scenario chose.
struct SimulatedFetchError: Error, FetchRetryAdvice, Equatable, CustomStringConvertible {
    enum Kind: Equatable {
        /// Retried with backoff (after `retryAfter`, when the server said so).
        case retryable
        /// Backing off will not help: retried at the next refresh.
        case notRetryable
        /// Ends readiness for good while it is undecided (an invalid SDK key).
        case endsReadiness
    }

    var kind: Kind
    var retryAfter: TimeInterval?
    /// Which fetch failed, so that a caller's error names its fetch.
    var fetch: Int

    var isRetryable: Bool { kind == .retryable }
    var endsReadiness: Bool { kind == .endsReadiness }
    var description: String { "simulated fetch \(fetch) failed (\(kind))" }
}

/// The SDK's own terminal error, for `failReadiness(with:)`.
struct SimulatedSDKError: Error, Equatable, CustomStringConvertible {
    var number: Int
    var description: String { "simulated SDK error \(number)" }
}
