/// A step of the SDK's configuration lifecycle, reported to
/// ``SDKConfiguration/diagnostics`` for logs, diagnostics screens and tests.
///
/// ```swift
/// var configuration = SDKConfiguration()
/// configuration.diagnostics = { step in logger.debug("\(step)") }
/// ```
public enum LifecycleDiagnostic: Sendable, CustomStringConvertible {
    /// A fetch started. `attempt` counts from 1 and restarts after a success.
    case fetchStarted(attempt: Int)
    /// A fetch succeeded and the store took the configuration.
    case configApplied(ConfigChange)
    /// A fetch failed (a ``ConfigDecodingError`` for a malformed body); the last good configuration
    /// stays in place and the next fetch is in `retryIn`.
    case fetchFailed(any Error, attempt: Int, retryIn: Duration)
    /// The next refresh is due in the given duration.
    case refreshScheduled(in: Duration)
    /// The lifecycle ended because the SDK shut down.
    case stopped

    /// A line for logs.
    public var description: String {
        switch self {
        case .fetchStarted(let attempt):
            attempt == 1 ? "fetch started" : "fetch started (attempt \(attempt))"
        case .configApplied(let change):
            "fetched: \(change)"
        case .fetchFailed(let error, let attempt, let delay):
            "fetch failed (attempt \(attempt)): \(error); retrying in \(delay)"
        case .refreshScheduled(let delay):
            "next refresh in \(delay)"
        case .stopped:
            "lifecycle stopped"
        }
    }
}
