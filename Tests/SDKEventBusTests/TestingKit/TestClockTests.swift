import SDKEventBusTesting
import Testing

@testable import SDKEventBus
@testable import SDKEventBusConfig
@testable import SDKEventBusCore
@testable import SDKEventBusWire

/// The test clock forgets every sleep once it ends, however it ends, so a long test that cancels
/// many sleepers (a lifecycle shut down over and over, refreshes cancelled) does not grow it.
@Suite(.timeLimit(.minutes(1))) struct TestClockTests {
    /// The sleeper is woken by `advance`, then cancelled before it runs again.
    ///
    /// The test holds the main actor, where the sleeper resumes, so the cancellation lands while the
    /// sleeper is still inside its cancellation handler. The clock used to keep the id of such a
    /// sleeper forever as "cancelled before it registered".
    @MainActor
    @Test func aSleeperCancelledAfterItWasWokenLeavesNothingBehind() async throws {
        let clock = TestClock()
        let sleeper = Task { @MainActor in try await clock.sleep(until: 1) }
        try await clock.waitForSleepers(1)
        clock.advance(by: 1)
        sleeper.cancel()
        _ = try? await sleeper.value
        #expect(clock.bookkeepingCount == 0)
    }

    @MainActor
    @Test func aThousandSleepersWokenThenCancelledLeaveNothingBehind() async throws {
        let clock = TestClock()
        var sleepers: [Task<Void, any Error>] = []
        for _ in 0..<1_000 {
            sleepers.append(Task { @MainActor in try await clock.sleep(until: 1) })
        }
        try await clock.waitForSleepers(1_000)
        clock.advance(by: 1)
        for sleeper in sleepers { sleeper.cancel() }
        for sleeper in sleepers { _ = try? await sleeper.value }
        #expect(clock.bookkeepingCount == 0)
    }

    @Test func aSleeperCancelledBeforeItRegistersThrowsAndLeavesNothingBehind() async {
        let clock = TestClock()
        let sleeper = Task {
            withUnsafeCurrentTask { $0?.cancel() }
            try await clock.sleep(until: 1)
        }
        await #expect(throws: CancellationError.self) { try await sleeper.value }
        #expect(clock.bookkeepingCount == 0)
    }

    @Test func aSleeperCancelledWhileSleepingThrowsAndLeavesNothingBehind() async throws {
        let clock = TestClock()
        let sleeper = Task { try await clock.sleep(until: 1) }
        try await clock.waitForSleepers(1)
        sleeper.cancel()
        await #expect(throws: CancellationError.self) { try await sleeper.value }
        #expect(clock.bookkeepingCount == 0)
        #expect(clock.sleeperCount == 0)
    }
}
