/// The SDK's configuration lifecycle: fetch → decode → store, then refresh on an interval, with
/// backoff after failures, until cancelled.
///
/// A failed fetch, including a malformed body, never touches the store: the last good configuration
/// stays in place, no event fires, and waiters keep waiting.
struct ConfigLifecycle: Sendable {
    let store: ConfigStore
    let service: any ConfigFetchService
    let configuration: SDKConfiguration

    /// Runs until the task is cancelled (or, without a refresh interval, until the first success).
    func run() async {
        var failures = 0
        while !Task.isCancelled {
            report(.fetchStarted(attempt: failures + 1))
            let delay: Duration
            do {
                let config = try await service.fetchLiveConfig()
                report(.configApplied(await store.setConfig(config)))
                failures = 0
                guard let refreshInterval = configuration.refreshInterval else { break }
                delay = refreshInterval
                report(.refreshScheduled(in: delay))
            } catch {
                if Task.isCancelled { break }
                failures += 1
                delay = configuration.retryPolicy.delay(afterFailures: failures, random: .random(in: 0..<1))
                report(.fetchFailed(error, attempt: failures, retryIn: delay))
            }
            do {
                try await configuration.clock.sleep(for: delay)
            } catch {
                break
            }
        }
        report(.stopped)
    }

    private func report(_ step: LifecycleDiagnostic) {
        configuration.diagnostics?(step)
    }
}
