/// How much one delivery job may do before it yields its executor (a main-actor or actor job), or
/// hands the immediate lane on (a firing thread, or the global-executor job that continues it):
/// about 2 ms of callbacks.
///
/// The pass counts callbacks and reads the monotonic clock only every ``interval`` of them. The
/// interval adapts so that reads come roughly every sixteenth of the budget: doubled while
/// callbacks are quick, halved while they are slow. So a job overruns its budget by at most about
/// one interval of callbacks, and a clock read costs a fraction of a nanosecond per callback.
struct DeliveryBudget {
    /// What a job may spend: time, and (for tests that need yields at known points) callbacks.
    struct Limit: Sendable, Equatable {
        var nanoseconds: UInt64
        var callbacks: Int

        /// About 2 ms of callbacks: a few jobs fit in a frame at 120 Hz.
        static let job = Limit(nanoseconds: 2_000_000, callbacks: .max)
    }

    private let deadline: UInt64
    /// The time clock reads aim to be apart.
    private let slice: UInt64
    private var lastCheck: UInt64
    private var callbacksLeft: Int
    /// Callbacks between two checks; grows while callbacks are quick.
    private var interval = 16
    /// Callbacks since the last check, counted down from the chunk that check allowed.
    private var chunk: Int
    private var countdown: Int
    /// Whether the budget ran out: the job stops at the next point it can resume from.
    private(set) var isSpent = false

    init(_ limit: Limit, now: UInt64) {
        deadline = now &+ limit.nanoseconds
        slice = max(limit.nanoseconds / 16, 1)
        lastCheck = now
        callbacksLeft = limit.callbacks
        chunk = min(interval, limit.callbacks)
        countdown = chunk
    }

    /// No limit, never reading the clock: for a firing thread's own fire, whose immediate
    /// listeners all run before `fire` returns.
    static var unlimited: DeliveryBudget {
        var budget = DeliveryBudget(Limit(nanoseconds: .max, callbacks: .max), now: 0)
        budget.countdown = .max
        return budget
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
        callbacksLeft -= chunk
        let now = MonotonicClock.nanoseconds
        if callbacksLeft <= 0 || now >= deadline {
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
        chunk = min(interval, callbacksLeft)
        countdown = chunk
        return false
    }
}
