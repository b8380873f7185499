import Foundation
import SDKEventBusTesting
import Testing

@testable import SDKEventBus
@testable import SDKEventBusConfig
@testable import SDKEventBusCore
@testable import SDKEventBusWire

/// Refreshes ahead of schedule: on demand (coalesced with a fetch in flight), when a configuration
/// outlives its time to live, when the app comes to the foreground, and the pause of low power
/// mode.
@Suite struct RefreshOnDemandTests {
    let rig = LifecycleRig()
    let a = Fixtures.config(named: "A")
    let b = Fixtures.config(named: "B")

    @Test func refreshNowFetchesAtOnceAndSaysWhatChanged() async throws {
        let service = rig.service([.config(a), .config(b), .config(b)])
        let (client, _) = rig.client(service)
        try await client.ready()
        #expect(try await client.refreshNow() == .updated)
        #expect(try await client.refreshNow() == .unchanged)
        #expect(service.fetchCount == 3)
        await client.shutdown()
    }

    @Test func concurrentRefreshesShareOneFetch() async throws {
        let service = rig.service([.config(a), .delayed(1, .config(b))])
        let (client, _) = rig.client(service)
        try await client.ready()
        let refreshes = (0..<5).map { _ in Task { try await client.refreshNow() } }
        try await service.waitForFetches(2)
        try await rig.clock.waitForSleepers(1)  // the second fetch waits its scripted second
        rig.clock.advance(by: 1)
        for refresh in refreshes { #expect(try await refresh.value == .updated) }
        #expect(service.fetchCount == 2, "five refreshes, one fetch")
        await client.shutdown()
    }

    @Test func refreshDuringAScheduledFetchJoinsIt() async throws {
        let service = rig.service([.config(a), .delayed(5, .config(b))])
        let (client, _) = rig.client(service, refreshInterval: 60)
        try await client.ready()
        try await rig.clock.waitForSleepers(1)
        rig.clock.advance(by: 60)  // the scheduled refresh starts and takes 5 s
        try await service.waitForFetches(2)
        let refresh = Task { try await client.refreshNow() }
        try await rig.clock.waitForSleepers(1)
        rig.clock.advance(by: 5)
        #expect(try await refresh.value == .updated)
        #expect(service.fetchCount == 2)
        await client.shutdown()
    }

    @Test func refreshFailureIsThrownAndTheLastGoodConfigStays() async throws {
        let failure = MockConfigFetchService.SimulatedError("offline")
        let (client, _) = rig.client(rig.service([.config(a), .failure(failure)]))
        try await client.ready()
        await #expect(throws: failure) { try await client.refreshNow() }
        #expect(client.config == a)
        await client.shutdown()
    }

    @Test func cancelledRefreshCallerReturnsWhileTheFetchGoesOn() async throws {
        let service = rig.service([.config(a), .delayed(1, .config(b))])
        let (client, _) = rig.client(service)
        try await client.ready()
        let refresh = Task { try await client.refreshNow() }
        try await service.waitForFetches(2)
        refresh.cancel()
        await #expect(throws: CancellationError.self) { try await refresh.value }
        // The fetch's 1 s delay: wait for its sleep, which starts after the fetch is counted.
        #expect(try await rig.clock.advanceToNextDeadline() == 1)
        try await rig.steps.wait("the refreshed config applied") { $0.appliedChange == .updated }
        #expect(client.config == b)
        await client.shutdown()
    }

    @Test func refreshAfterShutdownThrowsShutDown() async throws {
        let (client, _) = rig.client(rig.service([.config(a)]))
        try await client.ready()
        await client.shutdown()
        await #expect(throws: ReadinessError.shutDown) { try await client.refreshNow() }
    }

    @Test func readingAStaleConfigRefreshesItInTheBackground() async throws {
        let service = rig.service([.config(a), .config(b)])
        let (client, _) = rig.client(service, refreshInterval: nil, timeToLive: 30)
        try await client.ready()
        #expect(client.config == a, "fresh: no refresh")
        rig.clock.advance(by: 29)
        #expect(client.config == a)
        #expect(service.fetchCount == 1)
        rig.clock.advance(by: 1)
        #expect(client.config == a, "stale: this read starts a refresh and returns what is in effect")
        try await rig.steps.wait("the stale config refreshed") { $0.appliedChange == .updated }
        #expect(client.config == b)
        #expect(rig.steps.steps.contains { if case .refreshRequested(.stale) = $0 { true } else { false } })
        await client.shutdown()
    }

    @Test func comingToTheForegroundRefreshesOnlyAStaleConfig() async throws {
        let service = rig.service([.config(a), .config(b)])
        let (client, _) = rig.client(service, refreshInterval: nil, timeToLive: 30)
        try await client.ready()
        client.handle(.willEnterForeground)
        #expect(service.fetchCount == 1, "fresh: nothing to do")
        rig.clock.advance(by: 31)
        client.handle(.willEnterForeground)
        try await rig.steps.wait("the foreground refresh applied") { $0.appliedChange == .updated }
        #expect(service.fetchCount == 2)
        await client.shutdown()
    }

    @Test func lowPowerModePausesScheduledRefreshesUntilItEnds() async throws {
        let service = rig.service([.config(a), .config(b)])
        let (client, _) = rig.client(service, refreshInterval: 60)
        try await client.ready()
        try await rig.clock.waitForSleepers(1)
        client.handle(.lowPowerModeChanged(isEnabled: true))
        try await rig.steps.wait("the pause") { if case .refreshPaused = $0 { true } else { false } }
        rig.clock.advance(by: 120)
        #expect(service.fetchCount == 1, "no scheduled refresh while paused")
        #expect(try await client.refreshNow() == .updated, "a refresh on demand still runs")
        client.handle(.lowPowerModeChanged(isEnabled: false))
        try await rig.clock.waitForSleepers(1)
        #expect(try await rig.clock.timeUntilNextDeadline() == 60, "scheduled refreshes resume")
        await client.shutdown()
    }

    @Test func aRefreshThatFellDueWhilePausedRunsWhenThePauseEnds() async throws {
        let service = rig.service([.config(a), .config(b)])
        let (client, _) = rig.client(service, refreshInterval: 60)
        try await client.ready()
        try await rig.clock.waitForSleepers(1)
        client.handle(.lowPowerModeChanged(isEnabled: true))
        try await rig.steps.wait("the pause") { if case .refreshPaused = $0 { true } else { false } }
        rig.clock.advance(by: 90)
        client.handle(.lowPowerModeChanged(isEnabled: false))
        try await rig.steps.wait("the due refresh applied") { $0.appliedChange == .updated }
        #expect(service.fetchCount == 2)
        await client.shutdown()
    }
}
