public import Foundation

/// Real time, at every platform floor: the timers' clock unless an SDK or a test passes another.
///
/// Its time keeps counting while the device sleeps, as `ContinuousClock` does (Apple platforms:
/// `CLOCK_MONOTONIC_RAW`, from iOS 10 / macOS 10.12; Linux: `CLOCK_BOOTTIME`), so a configuration's
/// age is right after the device slept. It sleeps with `Task.sleep(nanoseconds:)`, which back-deploys
/// to iOS 13, then sleeps again if it woke early; a sleep that spans the device's sleep may end
/// late by as long as the device slept, never early.
///
/// Test SPI (`@_spi(Testing) import SDKEventBusConfig`): the real time of the testing library's
/// bounds and of its scripted fetch service without a test clock.
@_spi(Testing) public struct SystemTimerClock: TimerClock {
    /// The system's clock.
    public init() {}

    /// Nanoseconds since an origin in the past (the system's boot, on most platforms).
    public var nanoseconds: UInt64 { MonotonicClock.nanoseconds }

    /// Seconds since an origin in the past.
    public var now: TimeInterval { TimeUnits.seconds(inNanoseconds: nanoseconds) }

    /// Suspends until the clock reaches `deadline`, in seconds.
    ///
    /// - Parameter deadline: When to wake, in seconds since the clock's origin.
    /// - Throws: `CancellationError` when the task is cancelled, before or while it sleeps.
    public func sleep(until deadline: TimeInterval) async throws {
        try await sleep(untilNanoseconds: TimeUnits.nanoseconds(in: deadline))
    }

    /// Suspends until the clock reaches `deadline`.
    ///
    /// - Parameter deadline: When to wake, in nanoseconds since the clock's origin.
    /// - Throws: `CancellationError` when the task is cancelled, before or while it sleeps.
    public func sleep(untilNanoseconds deadline: UInt64) async throws {
        try Task.checkCancellation()
        while true {
            let now = nanoseconds
            guard now < deadline else { return }
            try await Task.sleep(nanoseconds: deadline - now)
        }
    }
}
