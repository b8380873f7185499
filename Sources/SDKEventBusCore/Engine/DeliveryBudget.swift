/// How much one delivery job may do before it yields its executor (a main-actor or actor job), or
/// hands the immediate lane on (a firing thread, or the global-executor job that continues it):
/// about 2 ms of callbacks.
///
/// The pass counts callbacks and reads the monotonic clock at the end of each *span* of them.
/// Each span's length follows the time the last one took: doubled while spans take less than half
/// of ``spanNanoseconds``, halved while they take more, one callback as soon as a span takes more
/// than four times that; never more than ``maximumSpacing`` callbacks. So the job starts no
/// callback once its time is spent, and runs past it by at most one span: one callback (or a few
/// µs of them) while their cost is steady, and at most ``maximumSpacing`` callbacks in the one span
/// where cheap callbacks give way to slow ones. Nothing else carries over from the callbacks before:
/// the span after a slow one is one callback long, however many cheap ones ran before it.
///
/// A clock read costs about 25 ns on Linux (the vDSO's `clock_gettime`), more than a cheap
/// callback's whole delivery (about 16 ns on the main actor): read after every callback, it made a
/// burst to 100 main-actor listeners 4× slower. Read at most every 16 callbacks, it is lost in the
/// noise (Docs/Performance.md).
struct DeliveryBudget {
    /// What a job may spend, and how many callbacks it makes before it first reads the clock.
    struct Limit: Sendable {
        var nanoseconds: UInt64
        /// Callbacks before the first clock read; spans follow the measured cost from there.
        var firstCheck: Int
        #if DEBUG || SDKEVENTBUS_TEST_HOOKS
            /// A test's clock, read instead of the monotonic one: callbacks of known simulated cost
            /// advance it (``BusStorage/limitJobs(toNanoseconds:clock:)``).
            var clock: (@Sendable () -> UInt64)? = nil
        #endif

        /// About 2 ms of callbacks: a few jobs fit in a frame at 120 Hz.
        ///
        /// The first span is one callback, which tells the cost of the next.
        static let job = Limit(nanoseconds: 2_000_000, firstCheck: 1)
    }

    /// The time a span aims at: its clock read is about 1% of it, and the job finds its end within
    /// a few µs once callbacks are steady.
    static let spanNanoseconds: UInt64 = 2_000

    /// The most callbacks between two clock reads: what a job may run past its time when cheap
    /// callbacks give way to slow ones all at once (16 callbacks of 50 µs: 0.8 ms).
    static let maximumSpacing = 16

    private let deadline: UInt64
    private var lastCheck: UInt64
    /// Callbacks in the current span.
    private var spacing: Int
    /// Callbacks left before the next check.
    private var countdown: Int
    /// Whether the budget ran out: the job stops at the next point it can resume from.
    private(set) var isSpent = false
    #if DEBUG || SDKEVENTBUS_TEST_HOOKS
        private let clock: (@Sendable () -> UInt64)?
    #endif

    /// Starts a job's budget now.
    init(_ limit: Limit) {
        #if DEBUG || SDKEVENTBUS_TEST_HOOKS
            clock = limit.clock
            let now = limit.clock?() ?? MonotonicClock.nanoseconds
        #else
            let now = MonotonicClock.nanoseconds
        #endif
        spacing = limit.firstCheck
        countdown = limit.firstCheck
        lastCheck = now
        deadline = now &+ limit.nanoseconds
    }

    private init(unlimited: Void) {
        #if DEBUG || SDKEVENTBUS_TEST_HOOKS
            clock = nil
        #endif
        deadline = .max
        lastCheck = 0
        spacing = .max
        countdown = .max
    }

    /// No limit, never reading the clock: for a firing thread's own fire, whose immediate
    /// listeners all run before `fire` returns.
    static var unlimited: DeliveryBudget { DeliveryBudget(unlimited: ()) }

    /// Counts one callback made.
    ///
    /// - Returns: Whether the budget is now spent.
    @inline(__always)
    mutating func spend() -> Bool {
        countdown &-= 1
        return countdown == 0 && check()
    }

    /// Reads the clock at the end of a span: the budget is spent once its time has passed;
    /// otherwise the next span's length follows the time this one took.
    @inline(never)
    private mutating func check() -> Bool {
        let now = readClock()
        if now >= deadline {
            isSpent = true
            return true
        }
        let elapsed = now &- lastCheck
        lastCheck = now
        // A test's first span may be longer than any later one.
        let current = min(spacing, Self.maximumSpacing)
        if elapsed > Self.spanNanoseconds * 4 {
            spacing = 1
        } else if elapsed > Self.spanNanoseconds {
            spacing = max(current / 2, 1)
        } else if elapsed < Self.spanNanoseconds / 2 {
            spacing = min(current * 2, Self.maximumSpacing)
        } else {
            spacing = current
        }
        countdown = spacing
        return false
    }

    @inline(__always)
    private func readClock() -> UInt64 {
        #if DEBUG || SDKEVENTBUS_TEST_HOOKS
            if let clock { return clock() }
        #endif
        return MonotonicClock.nanoseconds
    }
}
