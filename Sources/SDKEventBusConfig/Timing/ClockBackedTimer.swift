/// A timer clock that runs on a `Clock`, so that a configuration can hand the clock back.
@available(iOS 16, macOS 13, tvOS 16, watchOS 9, *)
package protocol ClockBackedTimer: TimerClock {
    /// The clock it runs on.
    var anyClock: any Clock<Duration> { get }
}
