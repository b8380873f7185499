import Foundation
import SDKEventBusTesting
import Testing

@testable import SDKEventBus
@testable import SDKEventBusConfig
@testable import SDKEventBusCore
@testable import SDKEventBusWire

/// From iOS 16 an SDK may run the lifecycle and a timed `ready` on a `Clock` of its own; before,
/// both run in real time, and tests use the test clock at every floor.
@Suite(.timeLimit(.minutes(1))) struct CustomClockTests {
    let a = Fixtures.config(named: "A")

    @available(iOS 16, macOS 13, tvOS 16, watchOS 9, *)
    @Test func aCustomClockRunsTheLifecyclesRefreshesAndItsShutdownBound() async throws {
        let manual = ManualClock()
        let steps = LifecycleRecorder()
        var settings = SDKConfiguration(refreshInterval: 60, diagnostics: steps.handler)
        settings.clock = manual
        #expect(settings.clock is ManualClock)
        #expect(settings.testClock == nil, "a custom clock is not a test clock")
        let client = SDKClient(configuration: settings, fetchService: MockConfigFetchService([.config(a)]))
        try await client.ready()
        #expect(try await manual.testClock.advanceToNextDeadline() == 60, "the refresh waits on the custom clock")
        try await steps.wait(for: 2, "two fetches") { if case .fetchStarted = $0 { true } else { false } }
        await client.shutdown()
    }

    @available(iOS 16, macOS 13, tvOS 16, watchOS 9, *)
    @Test func aTimedReadyOnACustomClockTimesOutInSeconds() async throws {
        let manual = ManualClock()
        let client = SDKClient(fetchService: MockConfigFetchService([.hang]))
        let timed = Task { try await client.ready(timeout: .milliseconds(2_500), clock: manual) }
        #expect(try await manual.testClock.advanceToNextDeadline() == 2.5)
        await #expect(throws: ReadinessError.timedOut(after: 2.5)) { try await timed.value }
        let store = client.store
        let storeWait = Task { try await store.waitForReady(timeout: .seconds(1), clock: manual) }
        #expect(try await manual.testClock.advanceToNextDeadline() == 1)
        await #expect(throws: ReadinessError.timedOut(after: 1)) { try await storeWait.value }
        await client.shutdown()
    }

    @Test func theClockIsRealTimeUnlessATestClockIsSet() {
        var settings = SDKConfiguration()
        #expect(settings.testClock == nil)
        #expect(settings.timer is SystemTimerClock)
        if #available(iOS 16, macOS 13, tvOS 16, watchOS 9, *) { #expect(settings.clock is ContinuousClock) }
        let clock = TestClock()
        settings.testClock = clock
        #expect(settings.testClock === clock)
        settings.testClock = nil
        #expect(settings.timer is SystemTimerClock)
    }
}
