import Foundation
import SDKEventBusTesting

/// A `Clock` a test moves, for the overloads that take a custom clock (iOS 16): a test clock behind
/// the `Clock` protocol.
@available(iOS 16, macOS 13, tvOS 16, watchOS 9, *)
struct ManualClock: Clock {
    struct Instant: InstantProtocol {
        var offset: Duration

        func advanced(by duration: Duration) -> Instant { Instant(offset: offset + duration) }
        func duration(to other: Instant) -> Duration { other.offset - offset }
        static func < (lhs: Instant, rhs: Instant) -> Bool { lhs.offset < rhs.offset }
    }

    let testClock = TestClock()

    var now: Instant { Instant(offset: .nanoseconds(Int64((testClock.now * 1e9).rounded()))) }
    var minimumResolution: Duration { .nanoseconds(1) }

    func sleep(until deadline: Instant, tolerance: Duration? = nil) async throws {
        let (seconds, attoseconds) = deadline.offset.components
        try await testClock.sleep(until: Double(seconds) + Double(attoseconds) / 1e18)
    }
}
