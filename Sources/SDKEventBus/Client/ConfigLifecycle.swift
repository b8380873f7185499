/// The SDK's configuration lifecycle: the injected and cached configurations first, then fetch →
/// decode → store, refreshing on an interval, with backoff after failures, until cancelled.
///
/// A failed fetch, including a malformed body, never touches the store: the last good configuration
/// stays in place, no event fires, and waiters keep waiting.
struct ConfigLifecycle: Sendable {
    let store: ConfigStore
    let service: any ConfigFetchService
    let configuration: SDKConfiguration
    let status: StatusRecorder

    /// Runs until the task is cancelled (or, without a refresh interval, until the first success).
    func run() async {
        var cached = await applyStartingConfigs()
        var failures = 0
        while !Task.isCancelled {
            report(.fetchStarted(attempt: failures + 1))
            let delay: Duration?
            do {
                let config = try await service.fetchLiveConfig()
                let change = await store.setConfig(config)
                status.fetchSucceeded()
                status.applied(change, from: .network)
                if change != .ignored, config != cached {
                    cached = save(config) ? config : cached
                }
                report(.configApplied(change))
                failures = 0
                delay = configuration.refreshInterval
                if let delay { report(.refreshScheduled(in: delay)) }
            } catch {
                if Task.isCancelled { break }
                failures += 1
                status.fetchFailed(error)
                let (wait, retryable) = retryDelay(after: error, failures: failures)
                report(.fetchFailed(error, attempt: failures, retryIn: wait))
                // A non-retryable error says nothing about the next one: back off from the start.
                if !retryable { failures = 0 }
                delay = wait
            }
            guard let delay else { break }
            do {
                try await configuration.clock.sleep(for: delay)
            } catch {
                break
            }
        }
        report(.stopped)
    }

    /// Applies the injected configuration, then the cached one.
    ///
    /// - Returns: The configuration the cache holds, so that an unchanged one is not written again.
    private func applyStartingConfigs() async -> ProjectConfig? {
        if let initial = configuration.initialConfig {
            let change = await store.setConfig(initial)
            status.applied(change, from: .injected)
            report(.initialConfigApplied(change))
        }
        guard let cache = configuration.cache else { return nil }
        do {
            guard let cached = try cache.load() else { return nil }
            let change = await store.setConfig(cached)
            status.applied(change, from: .cache)
            report(.cacheLoaded(change))
            return cached
        } catch {
            status.cacheFailed(error)
            report(.cacheRejected(error))
            return nil
        }
    }

    /// Writes a new configuration to the cache, if there is one.
    ///
    /// - Returns: Whether the cache now holds `config`.
    private func save(_ config: ProjectConfig) -> Bool {
        guard let cache = configuration.cache else { return false }
        do {
            try cache.save(config)
            return true
        } catch {
            report(.cacheWriteFailed(error))
            return false
        }
    }

    /// How long to wait after a failure, following the error's advice, and whether it advised
    /// retrying.
    private func retryDelay(after error: any Error, failures: Int) -> (Duration, retryable: Bool) {
        let advice = error as? any FetchRetryAdvice
        if let advice, !advice.isRetryable {
            // Backing off will not help (a rejected key, say): try again at the next refresh, or
            // after the longest backoff when there is none, so that readiness can still come.
            return (configuration.refreshInterval ?? configuration.retryPolicy.maximumDelay, false)
        }
        let backoff = configuration.retryPolicy.delay(afterFailures: failures, random: .random(in: 0..<1))
        guard let requested = advice?.retryAfter else { return (backoff, true) }
        return (max(backoff, min(requested, ConfigFetchError.longestRetryAfter)), true)
    }

    private func report(_ step: LifecycleDiagnostic) {
        configuration.diagnostics?(step)
    }
}
