package import Foundation

/// The time and the sleeps behind every timer of the package: the lifecycle's refreshes, backoff
/// and degraded deadline, a readiness timeout, and the bound of a shutdown.
///
/// It exists at every platform floor the package supports, unlike `Clock` (iOS 16): time is a count
/// of nanoseconds from an origin the clock chooses, monotonic. ``SystemTimerClock`` runs in real
/// time; the testing library's `TestClock` moves only when a test advances it, so a test drives
/// every timer of the code under test; from iOS 16 ``ClockTimer`` runs on any `Clock<Duration>` an
/// SDK passes.
///
/// Package-level, so that no clock protocol is public API: the public API speaks `TimeInterval`,
/// and takes a `Clock` only in the few overloads that exist from iOS 16.
package protocol TimerClock: Sendable {
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
    package func deadline(after interval: TimeInterval) -> UInt64 {
        let (sum, overflow) = nanoseconds.addingReportingOverflow(TimeUnits.nanoseconds(in: interval))
        return overflow ? .max : sum
    }

    /// Suspends for `interval` on this clock.
    ///
    /// - Parameter interval: How long, in seconds.
    /// - Throws: `CancellationError` when the task is cancelled, before or while it sleeps.
    package func sleep(for interval: TimeInterval) async throws {
        try await sleep(untilNanoseconds: deadline(after: interval))
    }
}
