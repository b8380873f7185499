@available(iOS 16, macOS 13, tvOS 16, watchOS 9, *)
extension Duration {
    /// The duration in whole nanoseconds: zero when not positive, the largest count when too long.
    package var wholeNanoseconds: UInt64 {
        guard self > .zero else { return 0 }
        let (seconds, attoseconds) = components
        let (whole, overflow) = UInt64(seconds).multipliedReportingOverflow(by: 1_000_000_000)
        let (total, overflowAgain) = whole.addingReportingOverflow(UInt64(attoseconds / 1_000_000_000))
        return overflow || overflowAgain ? .max : total
    }

    /// The duration in seconds, for the public API's `TimeInterval`s.
    package var timeInterval: Double {
        let (seconds, attoseconds) = components
        return Double(seconds) + Double(attoseconds) / 1e18
    }
}
