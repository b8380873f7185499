public import Foundation

/// A step of the SDK's configuration lifecycle, reported to
/// ``LifecycleConfiguration/diagnostics`` for logs, diagnostics screens and tests.
///
/// A step is reported before what it causes: ``configApplied(_:)`` before the listeners of the
/// announcement run and before `ready()` returns, ``fetchFailed(_:attempt:retryIn:)`` before the
/// ``degradedStart(_:)`` it causes.
///
/// ```swift
/// var configuration = SDKConfiguration()
/// configuration.diagnostics = { step in logger.debug("\(step)") }
/// ```
///
/// A later 1.x release may add steps, as the lifecycle learns to report more: a `switch` over a
/// step has a `default` (or `@unknown default`, which a binary SDK's library-evolution build
/// requires).
public enum LifecycleDiagnostic: Sendable, CustomStringConvertible {
    /// A fetch started. `attempt` counts from 1 and restarts after a success.
    case fetchStarted(attempt: Int)
    /// A fetch succeeded and the store took the configuration.
    case configApplied(ConfigChange)
    /// A fetch failed (a ``/SDKEventBusWire/JSONDecodingError`` for a malformed body); the last good configuration
    /// stays in place and the next fetch is in `retryIn` seconds.
    case fetchFailed(any Error, attempt: Int, retryIn: TimeInterval)
    /// ``LifecycleConfiguration/initialConfig`` was applied.
    case initialConfigApplied(ConfigChange)
    /// The cached configuration was read and applied.
    case cacheLoaded(ConfigChange)
    /// The cache could not be read, or holds no valid configuration (a ``/SDKEventBusWire/JSONDecodingError``); it
    /// was ignored. An invalid one is then deleted (``cacheCleared``).
    case cacheRejected(any Error)
    /// The corrupt cache ``cacheRejected(_:)`` reported was deleted with ``ConfigCache/clear()``.
    case cacheCleared
    /// A new configuration was written to the cache, after ``configApplied(_:)`` reported it.
    case cacheSaved
    /// A new configuration could not be written to the cache, or a corrupt one deleted; the
    /// configuration in effect stays.
    case cacheWriteFailed(any Error)
    /// The next refresh is due in the given number of seconds.
    case refreshScheduled(in: TimeInterval)
    /// The readiness policy made the SDK ready without a configuration.
    case degradedStart(any Error)
    /// A fetch error ended readiness for good (it adopts ``FetchRetryAdvice`` with
    /// ``FetchRetryAdvice/endsReadiness``).
    case readinessFailed(any Error)
    /// A refresh was asked for ahead of schedule.
    case refreshRequested(RefreshReason)
    /// The app came to the foreground and the configuration was still fresh: `age` seconds old,
    /// under its ``LifecycleConfiguration/timeToLive`` of `timeToLive` seconds, so nothing was
    /// fetched.
    case refreshSkipped(age: TimeInterval, timeToLive: TimeInterval)
    /// Periodic refreshes and retries (once the SDK is ready) were paused: by low power mode or
    /// ``CatalogClient/pauseRefreshing()``.
    case refreshPaused
    /// Periodic refreshes and retries resumed: low power mode ended, or
    /// ``CatalogClient/resumeRefreshing()``; one that fell due meanwhile runs now.
    case refreshResumed
    /// A periodic refresh or a retry fell due while paused, and waits for the pause to end: it
    /// runs as soon as it does.
    case refreshHeld
    /// The lifecycle ended: the SDK shut down, or stopped it (``CatalogClient/stopFetching()``),
    /// or readiness failed.
    case stopped

    /// Why a refresh ran ahead of schedule.
    ///
    /// Not closed: a later major release may add reasons (a minor release reports a new kind of
    /// step with a new ``LifecycleDiagnostic`` case instead), so a `switch` over it ends with
    /// `@unknown default` after its cases, which a binary SDK's library-evolution build requires
    /// anyway.
    public enum RefreshReason: Sendable, Equatable {
        /// `refreshNow()` was called.
        case demand
        /// The configuration outlived its time to live when it was read.
        case stale
        /// The app came to the foreground with a stale configuration.
        case foreground

        /// The reason, for the step's description.
        var name: String {
            switch self {
            case .demand: "on demand"
            case .stale: "configuration stale"
            case .foreground: "app in foreground"
            }
        }
    }

    /// A line for logs.
    public var description: String {
        switch self {
        case .fetchStarted(let attempt):
            attempt == 1 ? "fetch started" : "fetch started (attempt \(attempt))"
        case .configApplied(let change):
            "fetched: \(change)"
        case .fetchFailed(let error, let attempt, let delay):
            "fetch failed (attempt \(attempt)): \(error); retrying in \(delay) seconds"
        case .initialConfigApplied(let change):
            "initial config: \(change)"
        case .cacheLoaded(let change):
            "read from cache: \(change)"
        case .cacheRejected(let error):
            "cache ignored: \(error)"
        case .cacheCleared:
            "corrupt cache deleted"
        case .cacheSaved:
            "configuration written to the cache"
        case .cacheWriteFailed(let error):
            "cache not written: \(error)"
        case .refreshScheduled(let delay):
            "next refresh in \(delay) seconds"
        case .degradedStart(let error):
            "ready degraded, without a configuration: \(error)"
        case .readinessFailed(let error):
            "readiness failed for good: \(error)"
        case .refreshRequested(let reason):
            "refresh requested (\(reason.name))"
        case .refreshSkipped(let age, let timeToLive):
            "in foreground: configuration still fresh (\(age) of \(timeToLive) seconds), not refreshed"
        case .refreshPaused:
            "periodic refreshes paused"
        case .refreshResumed:
            "periodic refreshes resumed"
        case .refreshHeld:
            "refresh due, held until the pause ends"
        case .stopped:
            "lifecycle stopped"
        }
    }
}
