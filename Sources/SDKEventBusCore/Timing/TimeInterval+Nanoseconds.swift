import Foundation

extension TimeInterval {
    /// The interval in whole nanoseconds, rounded: zero for a negative interval or NaN, and the
    /// largest count for one too long to count (centuries).
    package var nanoseconds: UInt64 {
        guard self > 0 else { return 0 }
        let count = (self * 1e9).rounded()
        return count < 1.8e19 ? UInt64(count) : .max
    }

    /// The interval `nanoseconds` long, in seconds.
    ///
    /// - Parameter nanoseconds: The interval in nanoseconds.
    package init(nanoseconds: UInt64) {
        self = Double(nanoseconds) / 1e9
    }
}
