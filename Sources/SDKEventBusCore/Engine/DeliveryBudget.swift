/// How much one delivery job may do before it yields its executor (a main-actor or actor job), or
/// hands the immediate lane on (a firing thread, or the global-executor job that continues it):
/// about 2 ms of callbacks.
///
/// The pass counts callbacks and reads the monotonic clock only every ``interval`` of them. The
/// interval adapts so that reads come roughly every sixteenth of the budget: doubled while
/// callbacks are quick, halved while they are slow. So a job overruns its budget by at most about
/// one interval of callbacks, and a clock read costs a fraction of a nanosecond per callback.
struct DeliveryBudget {
    /// What a job may spend, and how many callbacks it makes before it first reads the clock.
    struct Limit: Sendable, Equatable {
        var nanoseconds: UInt64
        /// Callbacks before the first clock read; the interval adapts from there.
        var firstCheck: Int

        /// About 2 ms of callbacks: a few jobs fit in a frame at 120 Hz.
        static let job = Limit(nanoseconds: 2_000_000, firstCheck: 16)
    }

    private let deadline: UInt64
    /// The time clock reads aim to be apart.
    private let slice: UInt64
    private var lastCheck: UInt64
    /// Callbacks between two checks; grows while callbacks are quick.
    private var interval: Int
    /// Callbacks left before the next check.
    private var countdown: Int
    /// Whether the budget ran out: the job stops at the next point it can resume from.
    private(set) var isSpent = false

    init(_ limit: Limit, now: UInt64) {
        deadline = now &+ limit.nanoseconds
        slice = max(limit.nanoseconds / 16, 1)
        lastCheck = now
        interval = limit.firstCheck
        countdown = limit.firstCheck
    }

    /// No limit, never reading the clock: for a firing thread's own fire, whose immediate
    /// listeners all run before `fire` returns.
    static var unlimited: DeliveryBudget {
        DeliveryBudget(Limit(nanoseconds: .max, firstCheck: .max), now: 0)
    }

    /// Counts one callback made.
    ///
    /// - Returns: Whether the budget is now spent.
    @inline(__always)
    mutating func spend() -> Bool {
        countdown &-= 1
        return countdown == 0 && check()
    }

    @inline(never)
    private mutating func check() -> Bool {
        let now = MonotonicClock.nanoseconds
        if now >= deadline {
            isSpent = true
            return true
        }
        let elapsed = now &- lastCheck
        lastCheck = now
        if elapsed < slice / 2 {
            interval = min(interval * 2, 4_096)
        } else if elapsed > slice {
            interval = max(interval / 2, 1)
        }
        countdown = interval
        return false
    }
}
