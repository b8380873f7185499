// A small catalog declared outside SDKEventBus, the way another SDK declares its own: it lives in
// its own module so that the benchmarks see the bus's generic code exactly as such an SDK does,
// compiled in the library without knowledge of this catalog.
import SDKEventBus

/// The events of a feature-flag SDK.
public enum FlagEvent: String, EventCatalog {
    /// The SDK has its first flag configuration.
    case initialized
    /// A flag was evaluated for a user.
    case flagEvaluated = "flag.evaluated"
    /// Something failed.
    case error

    /// The payload sum type of the catalog.
    public typealias Payload = FlagEventPayload
}

/// What a flag evaluation announces: three strings, like the built-in `BucketingPayload`, so that
/// the two catalogs carry payloads of the same weight.
public struct FlagEvaluation: Sendable, Equatable {
    /// The flag.
    public var flagKey: String
    /// The variation the user gets.
    public var variationKey: String
    /// The user.
    public var userId: String

    /// Creates the payload.
    public init(flagKey: String, variationKey: String, userId: String) {
        self.flagKey = flagKey
        self.variationKey = variationKey
        self.userId = userId
    }
}

/// The payload of a ``FlagEvent``: one case per event.
public enum FlagEventPayload: CatalogPayload {
    /// The payload of ``FlagEvent/initialized``.
    case initialized
    /// The payload of ``FlagEvent/flagEvaluated``.
    case flagEvaluated(FlagEvaluation)
    /// The payload of ``FlagEvent/error``: what failed.
    case error(String)

    /// The event this payload is fired as.
    public var event: FlagEvent {
        switch self {
        case .initialized: .initialized
        case .flagEvaluated: .flagEvaluated
        case .error: .error
        }
    }
}
