import Foundation
import SDKEventBusTesting
import Testing

@testable import SDKEventBus
@_spi(Testing) @testable import SDKEventBusConfig
@_spi(Testing) @testable import SDKEventBusCore
@testable import SDKEventBusWire

/// An SDK runs the lifecycle and a timed `ready` on a clock of its own, a `LifecycleClock`, at every
/// platform floor: no Swift `Clock` (iOS 16) is involved.
@Suite(.timeLimit(.minutes(1))) struct CustomClockTests {
    let a = Fixtures.config(named: "A")

    @Test func anSDKsOwnClockDrivesARetryAtTheFloors() async throws {
        let clock = SchedulerClock(startingAt: 1_000)
        let steps = LifecycleRecorder()
        var settings = SDKConfiguration(
            refreshInterval: 60, retryPolicy: RetryPolicy(initialDelay: 2, jitter: 0), diagnostics: steps.handler)
        settings.clock = clock
        #expect(settings.clock is SchedulerClock, "kept as given")
        let failure = MockConfigFetchService.SimulatedError("offline")
        let client = SDKClient(
            configuration: settings, fetchService: MockConfigFetchService([.failure(failure), .config(a)]))
        try await steps.wait { $0.retryDelay == 2 }
        #expect(try await clock.scheduler.advanceToNextDeadline() == 2, "the retry waits 2 s on the SDK's clock")
        #expect(try await client.ready().source == .live)
        #expect(try await clock.scheduler.advanceToNextDeadline() == 60, "then the refresh, on the same clock")
        await client.shutdown()
    }

    @Test func aTimedReadyOnAnSDKsOwnClockTimesOutInItsSeconds() async throws {
        let clock = SchedulerClock()
        let client = SDKClient(fetchService: MockConfigFetchService([.hang]))
        let timed = Task { try await client.ready(timeout: 2.5, clock: clock) }
        #expect(try await clock.scheduler.advanceToNextDeadline() == 2.5)
        await #expect(throws: ReadinessError.timedOut(after: 2.5)) { try await timed.value }
        let store = client.store
        let storeWait = Task { try await store.waitForReady(timeout: 1, clock: clock) }
        #expect(try await clock.scheduler.advanceToNextDeadline() == 1)
        await #expect(throws: ReadinessError.timedOut(after: 1)) { try await storeWait.value }
        await client.shutdown()
    }

    @Test func theClockIsRealTimeUnlessAnotherIsSet() {
        var settings = SDKConfiguration()
        #expect(settings.timer is SystemTimerClock)
        let clock = TestClock()
        settings.clock = clock
        #expect(settings.clock as? TestClock === clock, "the test clock is read directly, in nanoseconds")
        settings.clock = SchedulerClock()
        #expect(settings.timer is LifecycleClockTimer, "another clock is read through the adapter")
    }
}
