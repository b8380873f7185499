/// A timer clock that runs on a `Clock` an SDK passes, from iOS 16: the adapter behind the
/// overloads that take a custom clock.
///
/// Its origin is the clock's instant when the adapter was made; a deadline before it wakes at once.
@available(iOS 16, macOS 13, tvOS 16, watchOS 9, *)
package struct ClockTimer<C: Clock>: TimerClock, ClockBackedTimer where C.Duration == Duration {
    /// The clock and the origin, boxed, so that the timer's layout does not depend on the clock's
    /// type: its value witnesses are then small fixed-layout ones rather than large generic ones.
    private let storage: Boxed<(clock: C, origin: C.Instant)>

    /// The clock it runs on.
    package var clock: C { storage.value.clock }
    private var origin: C.Instant { storage.value.origin }

    /// Runs on `clock`, from its instant now.
    ///
    /// - Parameter clock: The clock.
    package init(_ clock: C) {
        storage = Boxed((clock, clock.now))
    }

    /// Nanoseconds on the clock since the adapter was made.
    package var nanoseconds: UInt64 { TimeUnits.nanoseconds(in: origin.duration(to: clock.now)) }

    /// Suspends until the clock reaches `deadline`.
    ///
    /// - Parameter deadline: When to wake, in nanoseconds since the adapter was made.
    /// - Throws: `CancellationError` when the task is cancelled, before or while it sleeps.
    package func sleep(untilNanoseconds deadline: UInt64) async throws {
        try await clock.sleep(until: origin.advanced(by: .nanoseconds(Int64(clamping: deadline))), tolerance: nil)
    }

    /// The clock, for the configuration's `clock` property.
    package var anyClock: any Clock<Duration> { clock }
}
