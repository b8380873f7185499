import Foundation
import SDKEventBusConfig
import SDKEventBusTesting

/// Flag clients on a test clock, their lifecycle steps and events recorded: nothing here waits for
/// real time.
struct FlagHarness: Sendable {
    let clock = TestClock()
    let steps = LifecycleRecorder()

    /// Backoff 1 s, 2 s, 4 s … capped at 30 s, no jitter.
    static let retryPolicy = RetryPolicy(
        initialDelay: 1, multiplier: 2, maximumDelay: 30, jitter: 0)

    /// A scripted flag service on the harness's clock.
    func service(
        _ script: [ScriptedFlagService.Outcome],
        afterScript: ScriptedFlagService.Outcome? = .hang
    ) -> ScriptedFlagService {
        ScriptedFlagService(script, afterScript: afterScript, clock: clock)
    }

    /// The lifecycle settings of a flag client on the harness's clock.
    func configuration(
        refreshInterval: TimeInterval? = 60,
        readinessPolicy: ReadinessPolicy = .cachedOrLive,
        cache: (any ConfigCache<FlagSet>)? = nil
    ) -> FlagConfiguration {
        FlagConfiguration(
            refreshInterval: refreshInterval,
            retryPolicy: Self.retryPolicy,
            readinessPolicy: readinessPolicy,

            diagnostics: steps.handler,
            cache: cache
        ).on(clock)
    }

    /// A flag client of `service`, the SDK's emitter, and a recorder of every event it fires.
    ///
    /// The recorder subscribes right after the client starts: a sticky `initialized` fired before
    /// reaches it all the same, and the other events only follow the clock, which the test moves.
    func client(
        _ service: ScriptedFlagService,
        configuration: FlagConfiguration? = nil
    ) -> (client: FlagClient, emitter: FlagEmitter, events: EventRecorder<FlagEvent>) {
        let (client, emitter) = FlagClient.makeClient(
            configuration: configuration ?? self.configuration(), fetchService: service)
        return (client, emitter, EventRecorder(client.bus, delivery: .immediate))
    }
}
