import Foundation
import SDKEventBusTesting
import Testing

@_spi(Testing) @testable import SDKEventBusConfig
@_spi(Testing) @testable import SDKEventBusCore
@testable import SDKEventBusWire

/// The timers' clocks: seconds in the public API, exact nanoseconds inside, real time that exists at
/// every platform floor, and a test clock that keeps deadlines exact however far it has moved.
@Suite(.timeLimit(.minutes(1))) struct TimerClockTests {
    @Test func secondsBecomeWholeNanosecondsWithoutTrappingOnAnyValue() {
        #expect(TimeUnits.nanoseconds(in: 0.15 as TimeInterval) == 150_000_000)
        #expect(TimeUnits.nanoseconds(in: 300 as TimeInterval) == 300_000_000_000)
        #expect(TimeUnits.nanoseconds(in: -1 as TimeInterval) == 0)
        #expect(TimeUnits.nanoseconds(in: TimeInterval.nan) == 0)
        #expect(TimeUnits.nanoseconds(in: TimeInterval.infinity) == .max)
        #expect(TimeUnits.nanoseconds(in: 1e30 as TimeInterval) == .max)
        #expect(TimeUnits.seconds(inNanoseconds: 150_000_000) == 0.15)
    }

    @Test func aDeadlineFarAwaySaturatesInsteadOfOverflowing() {
        let clock = TestClock()
        clock.advance(by: 10)
        #expect(clock.deadline(after: .infinity) == .max)
        #expect(clock.deadline(after: -5) == clock.nanoseconds, "a negative interval is now")
    }

    /// Deadlines are kept in nanoseconds: `300 + 0.15 - 300` would be `0.149999…` in seconds.
    @Test func deadlinesStayExactAfterTheClockHasMovedFar() async throws {
        let clock = TestClock()
        clock.advance(by: 300)
        let sleeper = Task { try await clock.sleep(for: 0.15) }
        #expect(try await clock.timeUntilNextDeadline() == 0.15)
        #expect(try await clock.advanceToNextDeadline() == 0.15)
        try await sleeper.value
        #expect(clock.now == 300.15)
        #expect(clock.history == [0.15])
    }

    @Test func theSystemClockMovesForwardAndReturnsAtOnceForADeadlineThatPassed() async throws {
        let clock = SystemTimerClock()
        let first = clock.nanoseconds
        try await clock.sleep(untilNanoseconds: first)
        try await clock.sleep(for: -1)
        #expect(clock.nanoseconds >= first)
    }

    @Test func theSystemClockThrowsWhenItsTaskIsCancelled() async {
        let sleeper = Task {
            withUnsafeCurrentTask { $0?.cancel() }
            try await SystemTimerClock().sleep(for: 3_600)
        }
        await #expect(throws: CancellationError.self) { try await sleeper.value }
        let cancelledWhileSleeping = Task { try await SystemTimerClock().sleep(for: 3_600) }
        cancelledWhileSleeping.cancel()
        await #expect(throws: CancellationError.self) { try await cancelledWhileSleeping.value }
    }

    @Test func anSDKsOwnClockIsReadInNanosecondsFromItsSeconds() async throws {
        let own = SchedulerClock(startingAt: 42)
        let timer = own.nanosecondTimer
        #expect(timer.nanoseconds == 0)
        let sleeper = Task { try await timer.sleep(for: 2) }
        #expect(try await own.scheduler.advanceToNextDeadline() == 2)
        try await sleeper.value
        #expect(timer.nanoseconds == 2_000_000_000)
    }
}
