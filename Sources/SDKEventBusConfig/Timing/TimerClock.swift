public import Foundation

/// A ``LifecycleClock`` read in nanoseconds: what every timer of the package runs on.
///
/// The package's own clocks (``SystemTimerClock``, the testing library's `TestClock`) conform, so
/// their deadlines are exact; a clock of the SDK's own is read through ``LifecycleClockTimer``.
///
/// Test SPI (`@_spi(Testing) import SDKEventBusConfig`), for the testing library's clock.
@_spi(Testing) public protocol TimerClock: LifecycleClock {
    /// The clock's time: nanoseconds since its origin.
    var nanoseconds: UInt64 { get }

    /// Suspends until the clock's time reaches `deadline`.
    ///
    /// - Parameter deadline: When to wake, in nanoseconds since the clock's origin.
    /// - Throws: `CancellationError` when the task is cancelled, before or while it sleeps.
    func sleep(untilNanoseconds deadline: UInt64) async throws
}

extension TimerClock {
    /// The clock's time `interval` from now, saturating instead of overflowing.
    ///
    /// - Parameter interval: How far from now, in seconds; a negative one is now.
    /// - Returns: The deadline, in nanoseconds since the clock's origin.
    @_spi(Testing) public func deadline(after interval: TimeInterval) -> UInt64 {
        let (sum, overflow) = nanoseconds.addingReportingOverflow(TimeUnits.nanoseconds(in: interval))
        return overflow ? .max : sum
    }

    /// Suspends for `interval` on this clock.
    ///
    /// - Parameter interval: How long, in seconds.
    /// - Throws: `CancellationError` when the task is cancelled, before or while it sleeps.
    @_spi(Testing) public func sleep(for interval: TimeInterval) async throws {
        try await sleep(untilNanoseconds: deadline(after: interval))
    }
}
