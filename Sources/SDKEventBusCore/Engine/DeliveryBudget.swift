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
        /// A callback timed alone that ran at least this long is a slow listener (the main lane's
        /// budgets: ``BusDiagnostic/slowListener(event:file:line:duration:)``); `.max` for none.
        var slowNanoseconds: UInt64 = .max
        /// How many callbacks after the first check are timed alone, one clock read each, so that a
        /// slow one among them is named.
        var isolated = 0
        #if DEBUG || SDKEVENTBUS_TEST_HOOKS
            /// A test's clock, read instead of the monotonic one: callbacks of known simulated cost
            /// advance it (``BusStorage/limitJobs(toNanoseconds:clock:)``).
            var clock: (@Sendable () -> UInt64)? = nil
        #endif

        /// About 2 ms of callbacks: a few jobs fit in a frame at 120 Hz.
        ///
        /// The first span is one callback, which tells the cost of the next.
        static let job = Limit(nanoseconds: 2_000_000, firstCheck: 1)

        /// A frame at 60 Hz: 16 ms.
        static var defaultSlowNanoseconds: UInt64 { 16_000_000 }
        /// The callbacks timed alone at the start of each main-actor job: a job of a few fires, the
        /// common one, times each callback; a burst pays 16 clock reads per job of about 2 ms.
        static var isolatedPerJob: Int { 16 }
        /// The callbacks timed alone in each of the main lane's next ``jobsIsolatedAfterHitch`` jobs
        /// after a span of several callbacks ran over the threshold: the slow one is named when it
        /// runs again.
        static var isolatedAfterHitch: Int { 4_096 }
        /// How many main-actor jobs time ``isolatedAfterHitch`` callbacks alone after such a span.
        static var jobsIsolatedAfterHitch: Int { 8 }
    }

    /// A callback timed alone that ran past ``Limit/slowNanoseconds``: its event, its
    /// subscription's site (``SubscriptionSites``) and how long it ran.
    struct SlowCall {
        let event: Int
        let site: UInt32
        let nanoseconds: UInt64
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
    private let slowNanoseconds: UInt64
    /// Callbacks still to time alone.
    private var isolated: Int
    /// The first slow callback this job timed alone.
    private(set) var slowCall: SlowCall?
    /// Whether a span of several callbacks ran past the slow threshold: one of them was slow.
    private(set) var hasUnnamedSlowCall = false
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
        slowNanoseconds = limit.slowNanoseconds
        isolated = limit.isolated
    }

    private init(unlimited: Void) {
        #if DEBUG || SDKEVENTBUS_TEST_HOOKS
            clock = nil
        #endif
        deadline = .max
        lastCheck = 0
        spacing = .max
        countdown = .max
        slowNanoseconds = .max
        isolated = 0
    }

    /// No limit, never reading the clock: for a firing thread's own fire, whose immediate
    /// listeners all run before `fire` returns.
    static var unlimited: DeliveryBudget { DeliveryBudget(unlimited: ()) }

    /// Counts one callback made.
    ///
    /// - Parameters:
    ///   - event: The callback's event, named if it was slow.
    ///   - entry: The callback's entry, whose site is read only if it was slow.
    /// - Returns: Whether the budget is now spent.
    @inline(__always)
    mutating func spend(event: Int = -1, entry: UnsafeMutablePointer<ListenerEntry>? = nil) -> Bool {
        countdown &-= 1
        return countdown == 0 && check(event: event, entry: entry)
    }

    /// Reads the clock at the end of a span: notes a slow callback; the budget is spent once its
    /// time has passed; otherwise the next span's length follows the time this one took.
    @inline(never)
    private mutating func check(event: Int, entry: UnsafeMutablePointer<ListenerEntry>?) -> Bool {
        let now = readClock()
        let elapsed = now &- lastCheck
        if elapsed >= slowNanoseconds { noteSlowSpan(elapsed, event: event, entry: entry) }
        if now >= deadline {
            isSpent = true
            return true
        }
        lastCheck = now
        if isolated > 0 {
            isolated -= 1
            spacing = 1
            countdown = 1
            return false
        }
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

    /// Whether the budget found a slow callback, named or not.
    @inline(__always)
    var hasFindings: Bool { slowCall != nil || hasUnnamedSlowCall }

    /// The budget as it is, and forgets what it found about slow callbacks.
    mutating func takeFindings() -> DeliveryBudget {
        defer {
            slowCall = nil
            hasUnnamedSlowCall = false
        }
        return self
    }

    /// A span that ran past the slow threshold: named if it was one callback, else the lane's next
    /// job times each callback alone.
    private mutating func noteSlowSpan(_ elapsed: UInt64, event: Int, entry: UnsafeMutablePointer<ListenerEntry>?) {
        guard spacing == 1, let entry else {
            hasUnnamedSlowCall = true
            return
        }
        if slowCall == nil {
            slowCall = SlowCall(event: event, site: ListenerEntry.site(of: entry), nanoseconds: elapsed)
        }
    }

    @inline(__always)
    private func readClock() -> UInt64 {
        #if DEBUG || SDKEVENTBUS_TEST_HOOKS
            if let clock { return clock() }
        #endif
        return MonotonicClock.nanoseconds
    }
}
