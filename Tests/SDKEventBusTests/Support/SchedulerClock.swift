import Foundation
import SDKEventBusConfig
import SDKEventBusTesting

/// A clock of an SDK's own, as an SDK that keeps time with a scheduler of its own writes it.
///
/// A `LifecycleClock` and no Swift `Clock`, so it works at iOS 13. A test moves it through the test
/// clock it keeps time with, but the package sees only this type.
struct SchedulerClock: LifecycleClock {
    /// The time the scheduler keeps, which the test moves.
    let scheduler = TestClock()
    /// Where the scheduler stood when this clock was made: its time counts from there.
    let origin: TimeInterval

    init(startingAt start: TimeInterval = 0) {
        scheduler.advance(to: start)
        origin = start
    }

    var now: TimeInterval { scheduler.now - origin }

    func sleep(until deadline: TimeInterval) async throws {
        try await scheduler.sleep(until: origin + deadline)
    }
}
