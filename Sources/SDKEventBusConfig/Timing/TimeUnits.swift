/// Conversions between the public API's seconds (a `TimeInterval`, a `Double`; a `Duration`) and
/// the whole nanoseconds the timers count in.
///
/// A namespace rather than extensions of `Double` and `Duration`: an extension of a standard type,
/// even with `package` members only, is a public declaration of the module's API.
///
/// Test SPI (`@_spi(Testing) import SDKEventBusConfig`): the testing library's clock converts as
/// the timers do, so that a deadline it is advanced to is exactly the one a timer set.
@_spi(Testing) public enum TimeUnits: Sendable {
    /// `interval` in whole nanoseconds, rounded: zero for a negative interval or NaN, and the
    /// largest count for one too long to count (centuries).
    ///
    /// - Parameter interval: An interval in seconds.
    /// - Returns: The interval in nanoseconds.
    public static func nanoseconds(in interval: Double) -> UInt64 {
        guard interval > 0 else { return 0 }
        let count = (interval * 1e9).rounded()
        return count < 1.8e19 ? UInt64(count) : .max
    }

    /// The interval `nanoseconds` long, in seconds.
    ///
    /// - Parameter nanoseconds: An interval in nanoseconds.
    /// - Returns: The interval in seconds.
    public static func seconds(inNanoseconds nanoseconds: UInt64) -> Double {
        Double(nanoseconds) / 1e9
    }
}
