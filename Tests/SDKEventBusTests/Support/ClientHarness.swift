import Foundation
import SDKEventBusTesting

@testable import SDKEventBus
@testable import SDKEventBusConfig
@testable import SDKEventBusCore
@testable import SDKEventBusWire

/// Clients wired to a test clock, a diagnostics recorder and an event recorder.
///
/// The lifecycle suites share it; nothing here waits for real time.
@MainActor final class ClientHarness {
    let clock = TestClock()
    let diagnostics = DiagnosticsRecorder()
    private var eventRecorder: EventRecorder<SystemEvent>?

    /// What the bus of the client ``client(_:refreshInterval:cache:initialConfig:)`` made delivered,
    /// in order.
    var recorder: EventRecorder<SystemEvent> {
        guard let eventRecorder else { preconditionFailure("make a client first") }
        return eventRecorder
    }

    /// Backoff 1 s, 2 s, 4 s … capped at 30 s, no jitter.
    static let retryPolicy = RetryPolicy(
        initialDelay: 1, multiplier: 2, maximumDelay: 30, jitter: 0)

    /// A mock on the harness's clock whose first outcome waits one second, so that a test can
    /// subscribe before the first fetch ends.
    func mock(
        _ script: [MockConfigFetchService.Outcome],
        afterScript: MockConfigFetchService.Outcome? = .hang
    ) -> MockConfigFetchService {
        var script = script
        if let first = script.first { script[0] = .delayed(1, first) }
        return MockConfigFetchService(script, afterScript: afterScript, clock: clock)
    }

    /// A client of `service` on the harness's clock, retrying with ``retryPolicy``, its events
    /// recorded from before the client starts, so that none is missed.
    func client(
        _ service: some ConfigFetching<ProjectConfig>,
        refreshInterval: TimeInterval? = 60,
        cache: (any ConfigCache<ProjectConfig>)? = nil,
        initialConfig: ProjectConfig? = nil
    ) -> (SDKClient, EventEmitter) {
        let (bus, emitter) = EventBus.makeBus()
        eventRecorder = EventRecorder(bus)
        let client = SDKClient(
            store: ConfigStore(emitter: emitter),
            configuration: SDKConfiguration(
                refreshInterval: refreshInterval,
                retryPolicy: Self.retryPolicy,

                diagnostics: diagnostics.handler,
                cache: cache,
                initialConfig: initialConfig
            ).on(clock),
            fetchService: service
        )
        return (client, emitter)
    }
}

extension EventRecorder where Catalog == SystemEvent {
    /// The payload of the first `.ready` event recorded, if one arrived.
    var readiness: ReadyPayload? {
        payloads.lazy.compactMap { ReadyPayload($0) }.first
    }
}
