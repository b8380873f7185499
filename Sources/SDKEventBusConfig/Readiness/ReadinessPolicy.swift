public import Foundation

/// When an SDK becomes ready: the choice between waiting for fresh configuration and never keeping
/// an app waiting.
///
/// ```swift
/// configuration.readinessPolicy = .live                            // only fresh configuration
/// configuration.readinessPolicy = .cachedOrLive                    // the default
/// configuration.readinessPolicy = .degraded(after: 3)          // never hang at launch
/// ```
public struct ReadinessPolicy: Sendable, Equatable, CustomStringConvertible {
    enum Kind: Equatable {
        case live
        case cachedOrLive
        case degraded(after: TimeInterval?)
    }

    let kind: Kind

    /// Ready only from a live fetch: the initial and cached configurations are not applied (the
    /// cache is still written).
    public static let live = ReadinessPolicy(kind: .live)

    /// Ready from the initial configuration or the cache when there is one, otherwise from the
    /// first live fetch: the default.
    ///
    /// Live fetches follow and are announced as updates.
    public static let cachedOrLive = ReadinessPolicy(kind: .cachedOrLive)

    /// Ready *degraded*, without a configuration, when the first fetch fails and nothing else made
    /// the SDK ready, so that an app never hangs at launch.
    ///
    /// As ``cachedOrLive``; and when neither an initial nor a cached configuration exists, ready
    /// degraded after the first failed fetch, or once `timeout` has passed without a configuration,
    /// whichever comes first. A later successful fetch is announced as an update.
    ///
    /// ```swift
    /// configuration.readinessPolicy = .degraded(after: 3)   // ready within 3 s, online or not
    /// ```
    ///
    /// - Parameter timeout: How long to wait for the first configuration at most, in seconds on the
    ///   lifecycle's clock; `nil` waits for the first attempt to fail.
    /// - Returns: The policy.
    public static func degraded(after timeout: TimeInterval? = nil) -> ReadinessPolicy {
        ReadinessPolicy(kind: .degraded(after: timeout))
    }

    /// Whether the initial and cached configurations may make the SDK ready.
    var usesStoredConfigs: Bool { kind != .live }

    /// Whether a failed first attempt makes the SDK ready degraded.
    var resolvesDegraded: Bool {
        if case .degraded = kind { return true }
        return false
    }

    /// The policy's name, for logs.
    public var description: String {
        switch kind {
        case .live: "live"
        case .cachedOrLive: "cached or live"
        case .degraded(let timeout?): "degraded after \(timeout) seconds"
        case .degraded(nil): "degraded after the first failure"
        }
    }
}
