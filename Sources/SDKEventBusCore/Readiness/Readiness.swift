public import Foundation

/// How the SDK became ready: what `ready()` returns, the same value to every caller.
///
/// ```swift
/// let readiness = try await sdk.ready()
/// switch readiness.source {
/// case .live: break
/// case .cache, .initial: showStaleBadge(age: readiness.configAge)
/// case .degraded: showDefaults(because: readiness.error)
/// }
/// ```
///
///
/// The ready event carries the same facts (`ReadyPayload` for the built-in catalogue).
public struct Readiness: Sendable, Equatable, CustomStringConvertible {
    /// Where the configuration came from, or ``ConfigSource/degraded`` when there is none.
    public var source: ConfigSource
    /// How old the configuration was when the SDK became ready, in seconds: zero for a live one, the
    /// time since it was saved for a cached one; `nil` when unknown (an initial configuration, a
    /// cache that keeps no date) or when degraded.
    public var configAge: TimeInterval?
    /// For a degraded start, the error of the attempt that failed (or the deadline that passed).
    public var error: (any Error)?
    /// When the SDK became ready.
    public var date: Date

    /// Creates a readiness.
    ///
    /// - Parameters:
    ///   - source: Where the configuration came from.
    ///   - configAge: How old the configuration was, in seconds.
    ///   - error: For a degraded start, why.
    ///   - date: When the SDK became ready.
    public init(
        source: ConfigSource, configAge: TimeInterval? = nil, error: (any Error)? = nil, date: Date = Date()
    ) {
        self.source = source
        self.configAge = configAge
        self.error = error
        self.date = date
    }

    /// Whether two readinesses say the same: the same source, age and date, and errors that
    /// describe themselves the same way (errors are not `Equatable`).
    public static func == (lhs: Readiness, rhs: Readiness) -> Bool {
        lhs.source == rhs.source && lhs.configAge == rhs.configAge && lhs.date == rhs.date
            && lhs.error.map { "\($0)" } == rhs.error.map { "\($0)" }
    }

    /// A line for logs: `ready (live)`, `ready (cache, configuration 12.5 s old)`,
    /// `ready (degraded): the error`.
    ///
    /// The age is left out when it is zero, as it always is for a live configuration.
    public var description: String {
        var details = ["\(source)"]
        if let configAge, configAge > 0 {
            details.append("configuration \(String(format: "%.1f", configAge)) s old")
        }
        var text = "ready (\(details.joined(separator: ", ")))"
        if let error { text += ": \(error)" }
        return text
    }
}
