#if canImport(Darwin)
    import Darwin
#elseif canImport(Glibc)
    import Glibc
#elseif canImport(Musl)
    import Musl
#elseif canImport(Bionic)
    import Bionic
#endif

/// The system's monotonic time, for the engine's delivery budgets and backlog ages, and for the
/// configuration product's real-time clock.
package enum MonotonicClock {
    /// Nanoseconds since an unspecified origin; never goes back, and keeps counting while the device
    /// sleeps where the platform allows it.
    package static var nanoseconds: UInt64 {
        #if canImport(Darwin)
            clock_gettime_nsec_np(CLOCK_MONOTONIC_RAW)
        #else
            var time = timespec()
            let result = clock_gettime(CLOCK_BOOTTIME, &time)
            precondition(result == 0, "clock_gettime(CLOCK_BOOTTIME) failed")
            return UInt64(time.tv_sec) * 1_000_000_000 + UInt64(time.tv_nsec)
        #endif
    }
}
