public import Foundation

/// What a fetch error says about trying again; the SDK's lifecycle follows it.
///
/// Adopt it in your own fetch service's errors to steer retries. Errors that do not adopt it are
/// retried with the client's ``RetryPolicy``.
///
/// ```swift
/// struct QuotaExceeded: Error, FetchRetryAdvice {
///     var isRetryable: Bool { true }
///     var retryAfter: TimeInterval? { 60 }
/// }
/// ```
public protocol FetchRetryAdvice: Error {
    /// Whether fetching again soon can succeed.
    ///
    /// When `false` (a rejected key, a missing project), the client does not back off and retry:
    /// it tries again at its next refresh, or after its retry policy's longest delay when it has
    /// no refresh interval.
    var isRetryable: Bool { get }

    /// How long the server asked the client to wait, in seconds, if it did; the client waits at least
    /// this long (at most a day).
    var retryAfter: TimeInterval? { get }

    /// Whether the error ends readiness for good (an invalid SDK key, say): every current and later
    /// `ready()` then throws it, and the lifecycle stops fetching. `false` unless the error says so.
    var endsReadiness: Bool { get }
}

extension FetchRetryAdvice {
    /// Errors end readiness only when they say so.
    public var endsReadiness: Bool { false }
}
