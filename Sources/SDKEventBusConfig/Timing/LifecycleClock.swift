public import Foundation

/// The time a configuration lifecycle runs on: its refreshes, retries and degraded deadline, the
/// bound of a shutdown, and a timed wait for readiness.
///
/// Real time unless you pass another: an SDK that keeps time its own way (a scheduler of its own, a
/// clock it shares with its other timers) conforms it in a few lines, at every platform the package
/// supports (a Swift `Clock` needs iOS 16). The testing library's `TestClock` conforms, so a test
/// drives every timer of the code under test.
///
/// ```swift
/// struct SchedulerClock: LifecycleClock {
///     let scheduler: MyScheduler
///     var now: TimeInterval { scheduler.uptime }
///     func sleep(until deadline: TimeInterval) async throws {
///         try await scheduler.sleep(seconds: deadline - scheduler.uptime)
///     }
/// }
///
/// var settings = LifecycleConfiguration<FlagSet>()
/// settings.clock = SchedulerClock(scheduler: scheduler)
/// ```
///
/// From iOS 16 a Swift `Clock` adapts the same way: `now` is the time since an instant taken when
/// the adapter was made, and `sleep(until:)` sleeps until that instant advanced by the deadline.
public protocol LifecycleClock: Sendable {
    /// The clock's time, in seconds since an origin of its own choosing. It never goes back.
    var now: TimeInterval { get }

    /// Suspends until the clock's time reaches `deadline`; returns at once when it has.
    ///
    /// - Parameter deadline: When to wake, in seconds since the clock's origin.
    /// - Throws: `CancellationError` when the task is cancelled, before or while it sleeps.
    func sleep(until deadline: TimeInterval) async throws
}

extension LifecycleClock {
    /// This clock read in nanoseconds: itself for the package's own clocks, through
    /// ``LifecycleClockTimer`` for another.
    var nanosecondTimer: any TimerClock { self as? any TimerClock ?? LifecycleClockTimer(base: self) }
}

/// A clock of the SDK's own, read by the package's timers in nanoseconds.
struct LifecycleClockTimer: TimerClock {
    let base: any LifecycleClock

    var now: TimeInterval { base.now }

    var nanoseconds: UInt64 { TimeUnits.nanoseconds(in: base.now) }

    func sleep(until deadline: TimeInterval) async throws {
        try await base.sleep(until: deadline)
    }

    func sleep(untilNanoseconds deadline: UInt64) async throws {
        try await base.sleep(until: TimeUnits.seconds(inNanoseconds: deadline))
    }
}
