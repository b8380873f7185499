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
/// The ready event carries the same facts (`ReadyPayload` for the built-in catalog).
///
/// Not `Equatable`: its ``error`` is any error, and errors cannot be compared in general (two
/// descriptions can match for different errors, and differ for equal ones). Compare the fields
/// you need: ``source``, ``configAge``, ``date``, and the error as its own type.
public struct Readiness: Sendable, CustomStringConvertible {
    /// What made the SDK ready: where its configuration came from, or a degraded start.
    ///
    /// The raw values are the names logs and wire forms use (`ReadyPayload.source` of the built-in
    /// catalog carries them). Closed for good: its cases are on the wire and never change in 1.x.
    /// It is not `@frozen`, so a `switch` over it in a binary SDK's library-evolution build still
    /// ends with `@unknown default`.
    public enum Source: String, Sendable, Hashable, Codable {
        /// A live fetch.
        case live
        /// The cache of the last good configuration, read at start.
        case cache
        /// The configuration the SDK author gave to start from.
        case initial
        /// None: the SDK started without a configuration after a failure, and ``Readiness/error``
        /// says which.
        case degraded

        /// The readiness source of a configuration from `source`.
        init(_ source: ConfigSource) {
            switch source {
            case .live: self = .live
            case .cache: self = .cache
            case .initial: self = .initial
            }
        }

        /// Where the configuration came from; `nil` for a degraded start, which has none.
        var configSource: ConfigSource? { ConfigSource(rawValue: rawValue) }
    }

    /// Where the configuration came from, or ``Source/degraded`` when there is none.
    public var source: Source
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
        source: Source, configAge: TimeInterval? = nil, error: (any Error)? = nil, date: Date = Date()
    ) {
        self.source = source
        self.configAge = configAge
        self.error = error
        self.date = date
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
