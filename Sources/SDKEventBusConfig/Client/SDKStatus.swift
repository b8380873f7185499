public import Foundation

/// A snapshot of the client's state, for diagnostics screens and logs.
///
/// ```swift
/// let status = sdk.status
/// print(status.isReady, status.source ?? "none", status.lastFetchError.map { "\($0)" } ?? "no error")
/// ```
public struct SDKStatus: Sendable, CustomStringConvertible {
    /// Whether `ready()` would return at once.
    public var isReady: Bool
    /// Whether the client was shut down.
    public var isShutDown: Bool
    /// How the client became ready, once it did.
    public var readiness: Readiness?
    /// Where the configuration in effect came from; `nil` before the first one.
    public var source: ConfigSource?
    /// When the configuration in effect was applied (first set, or last changed).
    public var lastUpdated: Date?
    /// When a fetch last succeeded, changed configuration or not.
    public var lastSuccessfulFetchDate: Date?
    /// The error of the last failed fetch, or of the cache; `nil` once a fetch succeeds.
    public var lastFetchError: (any Error)?
    /// How many fetches in a row have failed.
    public var consecutiveFailures: Int

    /// A line for logs.
    public var description: String {
        var text =
            isShutDown ? "shut down" : readiness.map(String.init(describing:)) ?? (isReady ? "ready" : "not ready")
        if let source { text += ", source: " + String(describing: source) }
        if let lastUpdated { text += ", updated: " + String(describing: lastUpdated) }
        if consecutiveFailures > 0 { text += ", " + String(consecutiveFailures) + " failure(s) in a row" }
        if let lastFetchError { text += ", last error: " + String(describing: lastFetchError) }
        return text
    }
}

extension SDKStatus {
    /// Whether `other` says the same, for publishing only changes: every field equal, a readiness by
    /// its source and date (a gate decides once), errors by their description.
    func says(sameAs other: SDKStatus) -> Bool {
        isReady == other.isReady && isShutDown == other.isShutDown
            && readiness?.source == other.readiness?.source && readiness?.date == other.readiness?.date
            && source == other.source && lastUpdated == other.lastUpdated
            && lastSuccessfulFetchDate == other.lastSuccessfulFetchDate
            && consecutiveFailures == other.consecutiveFailures
            && lastFetchError.map(String.init(describing:)) == other.lastFetchError.map(String.init(describing:))
    }
}
