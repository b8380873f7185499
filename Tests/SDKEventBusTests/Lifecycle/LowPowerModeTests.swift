import Foundation
import SDKEventBusTesting
import Testing

@testable import SDKEventBus
@testable import SDKEventBusConfig
@testable import SDKEventBusCore
@testable import SDKEventBusWire

/// Low power mode holds periodic refreshes and retries once the SDK is ready, and nothing else:
/// never the first fetch (the client reports low power mode as it is created), a retry readiness
/// waits for, the degraded deadline or a refresh asked for; and turning it off always wakes the
/// schedule.
@Suite struct LowPowerModeTests {
    let rig = LifecycleRig()
    let a = Fixtures.config(named: "A")
    let b = Fixtures.config(named: "B")

    /// A lifecycle of the built-in catalog on the rig's clock, not started.
    func lifecycle(_ service: MockConfigFetchService) -> ConfigLifecycle<SystemEvent> {
        let (_, emitter) = EventBus.makeBus()
        return ConfigLifecycle(
            store: ConfigStore(emitter: emitter),
            fetchService: service,
            configuration: SDKConfiguration(
                refreshInterval: 60, retryPolicy: LifecycleRig.retryPolicy,
                diagnostics: rig.steps.handler
            ).on(rig.clock)
        )
    }

    @Test func lowPowerModeOnBeforeTheLifecycleStartsDoesNotHoldTheFirstFetch() async throws {
        let lifecycle = lifecycle(rig.service([.config(a)]))
        lifecycle.handle(.lowPowerModeChanged(isEnabled: true))
        let run = Task { await lifecycle.run() }
        try await rig.steps.wait("the first fetch applied", within: 60) { $0.appliedChange == .first }
        #expect(try await lifecycle.store.waitForReady().source == .live)
        run.cancel()
        await run.value
    }

    @Test func lowPowerModeReportedAsTheClientStartsDoesNotHoldReadiness() async throws {
        let (client, _) = rig.client(rig.service([.config(a)]))
        // What the client's UIKit observer does as the client is created, when low power mode is on.
        client.handle(.lowPowerModeChanged(isEnabled: true))
        try await rig.steps.wait("the first fetch applied", within: 60) { $0.appliedChange == .first }
        #expect(try await client.ready().source == .live, "ready() resolves from the first fetch")
        await client.shutdown()
    }

    @Test func aRetryThatReadinessWaitsForRunsInLowPowerMode() async throws {
        let failure = MockConfigFetchService.SimulatedError("offline")
        let (client, _) = rig.client(rig.service([.failure(failure), .config(a)]))
        client.handle(.lowPowerModeChanged(isEnabled: true))
        try await rig.steps.wait("the first attempt failed", within: 60) { $0.failure != nil }
        #expect(try await rig.clock.advanceToNextDeadline() == 1, "the backoff runs, not paused")
        try await rig.steps.wait("the retry applied", within: 60) { $0.appliedChange == .first }
        #expect(try await client.ready().source == .live)
        await client.shutdown()
    }

    @Test func theDegradedDeadlineRunsInLowPowerMode() async throws {
        let (client, _) = rig.client(rig.service([.hang]), policy: .degraded(after: 3))
        client.handle(.lowPowerModeChanged(isEnabled: true))
        try await rig.clock.waitForSleepers(1)
        rig.clock.advance(by: 3)
        #expect(try await client.ready().source == .degraded)
        await client.shutdown()
    }

    @Test func aRetryOnceReadyWaitsForLowPowerModeToEnd() async throws {
        let failure = MockConfigFetchService.SimulatedError("offline")
        let service = rig.service([.config(a), .failure(failure), .config(b)])
        let (client, _) = rig.client(service)
        try await client.ready()
        #expect(try await rig.clock.advanceToNextDeadline() == 60)
        try await rig.steps.wait("the refresh failed") { $0.failure != nil }
        client.handle(.lowPowerModeChanged(isEnabled: true))
        #expect(try await rig.clock.advanceToNextDeadline() == 1, "the backoff's deadline passes…")
        #expect(service.fetchCount == 2, "…but the retry waits: the SDK is ready")
        client.handle(.lowPowerModeChanged(isEnabled: false))
        try await rig.steps.wait("the retry applied") { $0.appliedChange == .updated }
        #expect(service.fetchCount == 3)
        await client.shutdown()
    }

    /// Low power mode turned on and off at each point of the schedule (before the deadline, across
    /// it), many times over, from a thread of its own with a spin between the two that grows from
    /// round to round, so that the "off" lands at every point of the lifecycle's reaction to the
    /// "on": every refresh that falls due runs.
    @Test func lowPowerModeToggledAtEveryPointOfTheScheduleLosesNoDueRefresh() async throws {
        let service = rig.service([.config(a)], afterScript: .delayed(1, .config(a)))
        let (client, _) = rig.client(service)
        let clock = rig.clock
        try await client.ready()
        var fetches = 1
        func expectFetch(_ point: String, round: Int) async throws {
            fetches += 1
            let expected = fetches
            try await rig.steps.wait(
                for: expected, "fetch \(expected), after toggling \(point) (round \(round))", within: 60
            ) { $0.isFetchStarted }
            // The scripted fetch takes one second on the clock.
            try await clock.waitForSleepers(1)
            clock.advance(by: 1)
            try await rig.steps.wait(for: expected - 1, "refresh \(expected) applied", within: 60) {
                $0.appliedChange == .unchanged
            }
        }
        @Sendable func spin(_ round: Int) {
            var sum = 0
            for i in 0..<(round % 100 * 30) { sum &+= i }
            _ = sum
        }
        for round in 0..<300 {
            // While the loop sleeps towards its deadline: on, and off again before it.
            try await clock.waitForSleepers(1)
            await offThePool {
                client.handle(.lowPowerModeChanged(isEnabled: true))
                spin(round)
                client.handle(.lowPowerModeChanged(isEnabled: false))
            }
            clock.advance(by: 60)
            try await expectFetch("before the deadline", round: round)

            // On before the deadline, off after it: the refresh that fell due meanwhile runs then.
            try await clock.waitForSleepers(1)
            await offThePool {
                client.handle(.lowPowerModeChanged(isEnabled: true))
                clock.advance(by: 60)
                spin(round)
                client.handle(.lowPowerModeChanged(isEnabled: false))
            }
            try await expectFetch("across the deadline", round: round)
        }
        await client.shutdown()
    }
}
