@testable import SDKEventBus

/// Clients wired to a manual clock, a diagnostics recorder and an event log.
///
/// The lifecycle suites share it; nothing here waits for real time.
@MainActor final class ClientHarness {
    let clock = ManualClock()
    let diagnostics = DiagnosticsRecorder()
    let log = EventLog()

    /// Backoff 1 s, 2 s, 4 s … capped at 30 s, no jitter.
    static let retryPolicy = RetryPolicy(
        initialDelay: .seconds(1), multiplier: 2, maximumDelay: .seconds(30), jitter: 0)

    /// A mock on the harness's clock whose first outcome waits one second, so that a test can
    /// subscribe before the first fetch ends.
    func mock(
        _ script: [MockConfigFetchService.Outcome],
        afterScript: MockConfigFetchService.Outcome? = .hang
    ) -> MockConfigFetchService {
        var script = script
        if let first = script.first { script[0] = .delayed(.seconds(1), first) }
        return MockConfigFetchService(script, afterScript: afterScript, clock: clock)
    }

    /// A client of `service` on the harness's clock, retrying with ``retryPolicy``, its events logged.
    func client(
        _ service: some ConfigFetchService<ProjectConfig>,
        refreshInterval: Duration? = .seconds(60),
        cache: (any ConfigCache<ProjectConfig>)? = nil,
        initialConfig: ProjectConfig? = nil
    ) async -> (SDKClient, EventEmitter) {
        let (client, emitter) = SDKClient.make(
            configuration: SDKConfiguration(
                refreshInterval: refreshInterval,
                retryPolicy: Self.retryPolicy,
                clock: clock,
                diagnostics: diagnostics.handler,
                cache: cache,
                initialConfig: initialConfig
            ),
            fetchService: service
        )
        await log.attach(to: client.bus)
        return (client, emitter)
    }
}
