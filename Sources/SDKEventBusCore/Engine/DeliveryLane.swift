/// Where a subscription's callbacks run: the engine keeps one lane per place.
package enum LaneSelector: @unchecked Sendable {
    // @unchecked: `any Actor` is Sendable; the enum only carries it to the lock.

    /// The main actor: callbacks run in main-actor jobs of at most about 2 ms each.
    case mainActor
    /// The firing thread, before `fire` returns (or the thread delivering on the lane then).
    case immediate
    /// The given actor: callbacks run in jobs on it of at most about 2 ms each.
    case actor(any Actor)
}

/// One delivery lane: its queue, the state of its pass, and who waits on it.
///
/// Plain state, guarded by the bus's lock.
///
/// A lane runs at most one pass at a time, so the callbacks of one lane never run concurrently and
/// see fires in the order they were queued. A pass may span several jobs: between two, the lane
/// holds its batch and the place reached in it (``held``), and the pass stays active.
///
/// Priority: a lane's jobs run at least at the highest priority among the fires they carry (see
/// ``enqueue(_:payload:priority:preemptsRunningJob:)``). Only the lane's current ``Job`` delivers:
/// a job of a higher priority scheduled for a fire supersedes the one before it, which leaves the
/// drain to it at its start or at the end of its batch. The main lane records no priority (its
/// fires pass 0): its jobs run in the main queue's FIFO order, which priority does not change.
struct DeliveryLane {
    /// A job scheduled to run the lane's drain: which one, and its priority (a `TaskPriority`'s raw
    /// value; 0 for the scheduling caller's own).
    struct Job: Equatable {
        /// Wraps after 2³² generations (every inline immediate delivery starts one), so a job
        /// superseded long ago could share the current job's generation: ``start(_:)`` also asks
        /// that the current job has not started. (64 bits would make the lane 8 bytes larger, and
        /// that alone made one listener fed from the pool 1.6× slower.)
        var generation: UInt32
        var priority: UInt8
    }

    /// A batch a pass has taken, and how far it got: the fire it is at, and within that fire the
    /// first listener id still to call (0 for the fire's start).
    struct HeldBatch {
        let buffer: DeliveryBuffer
        var index = 0
        var resumeID: UInt64 = 0
    }

    /// How many pending fires trigger the first backlog report; each later report doubles it.
    static var backlogThreshold: Int { 1_000 }

    let cursor = PassCursor()
    /// For an actor lane, its actor; `nil` for the main actor and immediate lanes, and once the
    /// actor is gone.
    weak var actor: (any Actor)?
    /// For an actor lane in use, its actor's identity, kept after the actor is gone so that the
    /// lane can be freed then; `nil` for a vacant lane.
    var actorID: ObjectIdentifier?
    /// What the lane is, for diagnostics.
    var name: String

    /// How many live subscriptions the lane delivers to.
    var liveCount = 0
    private(set) var pending: DeliveryBuffer
    /// The buffer of the last batch, emptied, kept to avoid reallocating per batch.
    private var spare: DeliveryBuffer
    /// Whether a drain is scheduled or running (for the immediate lane: a thread is delivering).
    var isDraining = false
    /// Whether a pass is between taking a batch and finishing it (also while it waits between
    /// two jobs).
    var isPassActive = false
    /// The batch of a pass that yielded its executor, for its next job to resume: the pass is
    /// active, outside any bucket.
    private(set) var held: HeldBatch?
    /// Ended entries whose callbacks the running pass may be calling: released when it moves on.
    var deferredReleases: [(bucket: ListenerBucket, position: Int)] = []
    /// `off` callers waiting for the running pass to move on.
    private(set) var offWaiters: [BusWaiter] = []

    /// Registers an `off` caller waiting for the running pass to move on.
    mutating func addOffWaiter(_ waiter: BusWaiter) {
        offWaiters.append(waiter)
    }

    /// Forgets an `off` caller whose task was cancelled.
    mutating func removeOffWaiter(_ waiter: BusWaiter) {
        offWaiters.removeAll { $0 === waiter }
    }

    /// Takes every `off` caller, for the pass to resume: it has moved on.
    mutating func takeOffWaiters() -> [BusWaiter] {
        defer { offWaiters = [] }
        return offWaiters
    }

    /// How many `off` callers wait for the running pass to move on.
    var offWaiterCount: Int { offWaiters.count }

    /// How many `flush` callers wait for fires queued on the lane.
    var flushWaiterCount: Int { flushWaiters.count }

    /// Buckets to tidy once no pass runs; each at most once (its ``ListenerBucket/isDueForTidying``).
    var bucketsDueForTidying: [ListenerBucket] = []

    private(set) var enqueuedCount: UInt64 = 0
    private(set) var deliveredCount: UInt64 = 0
    private var flushWaiters: [(target: UInt64, waiter: BusWaiter)] = []

    /// The most fires ever pending at once.
    private(set) var highWaterMark = 0
    private var nextBacklogReport = Self.backlogThreshold
    /// When the oldest pending fire was queued, in the system clock's nanoseconds.
    private var oldestPendingSince: UInt64?

    // Priority, last: the fields above keep the offsets (and the cache lines) they had before it.

    /// The drain's current job, the only one that delivers: one scheduled earlier leaves the drain
    /// to it.
    private(set) var job = Job(generation: 0, priority: 0)
    /// Whether the current job has started (on the immediate lane, also: the firing thread is
    /// delivering), after which a fire on the immediate lane supersedes it no more.
    private(set) var isJobStarted = false
    /// The highest priority among the queued fires (0 when unknown).
    private(set) var pendingPriority: UInt8 = 0
    /// The highest priority among the fires of the batch the pass has taken or holds.
    private(set) var batchPriority: UInt8 = 0

    /// Creates a lane.
    ///
    /// - Parameters:
    ///   - name: What the lane is, for diagnostics.
    ///   - layout: The payloads' layout.
    ///   - actor: For an actor lane, its actor.
    ///   - firstGeneration: The generation of its first job: above every job of a lane that had its
    ///     place before, so that none of theirs still queued is taken for one of this lane's.
    init(name: String, layout: PayloadLayout, actor: (any Actor)? = nil, firstGeneration: UInt32 = 0) {
        self.name = name
        self.actor = actor
        actorID = actor.map { ObjectIdentifier($0) }
        pending = DeliveryBuffer(layout: layout)
        spare = DeliveryBuffer(layout: layout)
        job = Job(generation: firstGeneration, priority: 0)
    }

    /// Frees an actor lane that has nothing left (``isVacant``) for another actor, keeping no
    /// memory: its buffers free their segments, and it forgets its actor.
    mutating func vacate() {
        actor = nil
        actorID = nil
        name = "vacant"
        pending.releaseMemory()
        spare.releaseMemory()
        deferredReleases = []
        offWaiters = []
        bucketsDueForTidying = []
        flushWaiters = []
    }

    /// How many deliveries the lane's two buffers hold room for: the memory they keep (once a batch
    /// is delivered, at most a segment each).
    var bufferCapacity: Int { pending.capacity + spare.capacity }

    /// Whether every fire queued on the lane has been delivered.
    var isIdle: Bool { enqueuedCount == deliveredCount }

    /// Whether the lane can be reused for another actor: nothing subscribed, queued or running.
    var isVacant: Bool { liveCount == 0 && !isDraining && !isPassActive && pending.isEmpty }

    // MARK: Queue

    /// Queues a delivery on the main lane, whose fires carry no priority (see ``DeliveryLane``).
    ///
    /// - Returns: The job the caller must schedule (for the first fire since the drain ended), and
    ///   a backlog report if the queue reached a new threshold.
    @inline(__always)
    mutating func enqueue(
        _ header: DeliveryHeader,
        payload: UnsafeRawPointer
    ) -> (schedule: Job?, backlog: DeliveryBacklog?) {
        let backlog = append(header, payload: payload)
        if isDraining { return (nil, backlog) }
        isDraining = true
        return (scheduleJob(priority: 0), backlog)
    }

    /// Queues a delivery of a fire of `priority` (a `TaskPriority`'s raw value; 0 when unknown).
    ///
    /// A job is to be scheduled for the first fire since the drain ended, and for a fire of a
    /// higher priority than the current job: that job supersedes it. When jobs run on a serial
    /// executor (`preemptsRunningJob`: an actor) even a running job is superseded: it leaves the
    /// rest to the new one at the end of its batch, and the new job, queued on the actor at the
    /// higher priority, escalates it meanwhile. On the global executor (the immediate lane) two
    /// jobs could run at once, so only a job that has not started is superseded; a running one
    /// yields to a job of the higher priority at the end of its batch (see
    /// ``mustYield(_:)``).
    ///
    /// - Returns: The job the caller must schedule, if any, and a backlog report if the queue
    ///   reached a new threshold.
    @inline(__always)
    mutating func enqueue(
        _ header: DeliveryHeader,
        payload: UnsafeRawPointer,
        priority: UInt8,
        preemptsRunningJob: Bool
    ) -> (schedule: Job?, backlog: DeliveryBacklog?) {
        let backlog = append(header, payload: payload)
        if priority > pendingPriority { pendingPriority = priority }
        if isDraining {
            guard priority > job.priority, preemptsRunningJob || !isJobStarted else { return (nil, backlog) }
            return (scheduleJob(priority: priority), backlog)
        }
        isDraining = true
        return (scheduleJob(priority: priority), backlog)
    }

    /// Appends a delivery to the queue.
    ///
    /// - Returns: A backlog report if the queue reached a new threshold.
    @inline(__always)
    private mutating func append(_ header: DeliveryHeader, payload: UnsafeRawPointer) -> DeliveryBacklog? {
        if pending.isEmpty { oldestPendingSince = MonotonicClock.nanoseconds }
        pending.append(header, payload: payload)
        enqueuedCount += 1
        return recordBacklog()
    }

    /// Makes a new job the drain's current one.
    private mutating func scheduleJob(priority: UInt8) -> Job {
        job = Job(generation: job.generation &+ 1, priority: priority)
        isJobStarted = false
        return job
    }

    /// Records that the drain goes on in a job scheduled now, at the highest priority among the
    /// fires it carries: the held batch's and the queued ones.
    ///
    /// - Returns: The job to schedule.
    mutating func continueInNewJob() -> Job {
        scheduleJob(priority: max(held == nil ? 0 : batchPriority, pendingPriority))
    }

    /// Whether `job` is the drain's current job; `nil` stands for one that no other supersedes
    /// (the main lane's, and the firing thread delivering on the immediate lane).
    @inline(__always)
    func isCurrent(_ job: Job?) -> Bool {
        // No closure: one capturing `self` would copy the whole lane.
        guard let job else { return true }
        return job.generation == self.job.generation
    }

    /// Whether a running `job` must stop at the end of its batch and leave the queued fires to a
    /// job of a higher priority: queued fires outrank it, and no job was scheduled for them (a
    /// running job on the global executor is superseded by no fire).
    @inline(__always)
    func mustYield(_ job: Job?) -> Bool {
        guard let job else { return false }
        return pendingPriority > job.priority && !pending.isEmpty
    }

    /// Counts a fire that the caller delivers at once, without queueing it.
    mutating func startInlineDelivery() {
        enqueuedCount += 1
        isDraining = true
        isPassActive = true
        // The firing thread is the drain's job, started: no fire supersedes it.
        _ = scheduleJob(priority: .max)
        isJobStarted = true
    }

    /// Starts an inline delivery (``startInlineDelivery()``) unless a thread is delivering on the
    /// lane already.
    ///
    /// - Returns: Whether it started one: the firing thread delivers its fire now.
    // One in-place access to the lane, as every test on a fire's path is: in a debug build (what an
    // app's Debug configuration compiles the package as), reading a field through the lanes array
    // copies the whole lane, retaining and releasing each of its references.
    @inline(__always)
    mutating func startInlineDeliveryIfIdle() -> Bool {
        guard !isDraining else { return false }
        startInlineDelivery()
        return true
    }

    /// Releases the callbacks the pass deferred and resumes the `off` callers waiting for it; see
    /// ``BusStorage/State/actOnRequests(lane:into:)``.
    ///
    /// Out of line, as it was before it moved into the lane: inlined into the pass's callers, it
    /// added 1.1 KB to the core's machine code.
    @inline(never)
    mutating func actOnRequests(into work: inout AfterUnlock) {
        // `count`, not `isEmpty`, here and in `finishPass`: Array takes `isEmpty` from Collection,
        // a generic call in a debug build, where this runs at every fire.
        if deferredReleases.count > 0 {
            for (bucket, position) in deferredReleases {
                work.release(bucket.takeCallback(at: position))
            }
            deferredReleases.removeAll(keepingCapacity: true)
        }
        if offWaiters.count > 0 { resumeOffWaiters(into: &work) }
        cursor.clearRequests()
    }

    /// Takes the `off` callers waiting on the pass, to resume after unlocking.
    ///
    /// Out of line: a waiter holds a continuation, whose size the compiler learns only at run time,
    /// and code that handles one sets up room for it on entry, which the pass's path between
    /// callbacks must not pay when no one waits.
    @inline(never)
    private mutating func resumeOffWaiters(into work: inout AfterUnlock) {
        for waiter in takeOffWaiters() {
            if let continuation = waiter.finish() { work.continuations.append(continuation) }
        }
    }

    /// Ends the pass: records its batch as delivered (``finishBatch(count:recycling:)``), acts on
    /// what enders asked (``actOnRequests(into:)``), and takes the buckets due for tidying.
    ///
    /// One in-place access for the whole end of a pass (see ``startInlineDeliveryIfIdle()``).
    ///
    /// - Returns: The buckets to tidy now that no pass runs, or `nil` when there are none.
    mutating func finishPass(
        count: Int,
        recycling buffer: DeliveryBuffer?,
        into work: inout AfterUnlock
    ) -> [ListenerBucket]? {
        let flushed = finishBatch(count: count, recycling: buffer)
        if flushed.count > 0 { work.continuations += flushed }
        actOnRequests(into: &work)
        guard bucketsDueForTidying.count > 0 else { return nil }
        defer { bucketsDueForTidying = [] }
        return bucketsDueForTidying
    }

    /// Takes every queued delivery, and marks the pass active.
    ///
    /// - Returns: The deliveries, or `nil` when none is queued; the drain then ends. Give the
    ///   buffer back with ``finishBatch(count:recycling:)`` once it is emptied.
    mutating func takeBatch() -> DeliveryBuffer? {
        guard !pending.isEmpty else {
            isDraining = false
            return nil
        }
        let batch = pending
        pending = spare
        oldestPendingSince = nil
        batchPriority = pendingPriority
        pendingPriority = 0
        nextBacklogReport = Self.backlogThreshold
        isPassActive = true
        return batch
    }

    /// What `job` delivers first: the batch the pass held between two jobs, or else every queued
    /// delivery (see ``takeBatch()``); `nil` when a later job superseded it (the drain goes on in
    /// that one) or nothing is queued (the drain ends).
    mutating func start(_ job: Job?) -> HeldBatch? {
        // A scheduled job starts once; a current job already started is another with the same
        // generation (a firing thread's, after the generation wrapped), and this one is stale.
        guard isCurrent(job), job == nil || !isJobStarted else { return nil }
        isJobStarted = true
        if let held {
            self.held = nil
            return held
        }
        return takeBatch().map { HeldBatch(buffer: $0) }
    }

    /// Keeps the batch of a pass that yields its executor mid-batch, for its next job.
    mutating func hold(_ batch: HeldBatch) {
        held = batch
    }

    /// Whether a job that spent its budget at the end of a batch must schedule another.
    ///
    /// It must when fires are queued; otherwise the drain ends here.
    mutating func continuesAfterYield() -> Bool {
        guard pending.isEmpty else { return true }
        isDraining = false
        return false
    }

    /// Takes the batch a pass holds between two jobs, whose remaining fires are dropped.
    ///
    /// For a bus that shuts down; finish the pass with ``finishBatch(count:recycling:)``.
    mutating func dropHeld() -> DeliveryBuffer? {
        defer { held = nil }
        return held?.buffer
    }

    /// Records that the pass delivered `count` fires, and keeps `buffer`, emptied, for a later
    /// batch.
    ///
    /// - Returns: The flush callers whose fires have all been delivered, to resume after unlocking.
    mutating func finishBatch(count: Int, recycling buffer: DeliveryBuffer?) -> [CheckedContinuation<Void, Never>] {
        isPassActive = false
        if let buffer { spare = buffer }
        return markDelivered(UInt64(count))
    }

    /// Drops every queued fire, for a bus that shuts down.
    ///
    /// - Returns: The dropped deliveries, to destroy after unlocking (a payload's deinit may run
    ///   user code), and the flush callers to resume.
    mutating func dropPending() -> (dropped: DeliveryBuffer, flushed: [CheckedContinuation<Void, Never>]) {
        let dropped = pending
        pending = DeliveryBuffer(layout: dropped.layout)
        pendingPriority = 0
        // While a pass holds a batch, the spare buffer is the pending one (see `takeBatch`): keeping
        // it would keep the dropped payloads alive, and the pass's end would then release them
        // under the lock.
        if spare === dropped { spare = DeliveryBuffer(layout: dropped.layout) }
        oldestPendingSince = nil
        return (dropped, markDelivered(UInt64(dropped.count)))
    }

    @inline(__always)
    private mutating func markDelivered(_ count: UInt64) -> [CheckedContinuation<Void, Never>] {
        deliveredCount += count
        guard let first = flushWaiters.first, first.target <= deliveredCount else { return [] }
        return releaseFlushWaiters()
    }

    /// Takes the flush callers whose fires have all been delivered.
    ///
    /// Out of line, for the reason of `resumeOffWaiters(into:)`: the batch's
    /// path must not set up room for a continuation when no one waits.
    @inline(never)
    private mutating func releaseFlushWaiters() -> [CheckedContinuation<Void, Never>] {
        var done: [CheckedContinuation<Void, Never>] = []
        while let first = flushWaiters.first, first.target <= deliveredCount {
            flushWaiters.removeFirst()
            first.waiter.remaining -= 1
            if first.waiter.remaining == 0, let continuation = first.waiter.finish() { done.append(continuation) }
        }
        return done
    }

    /// Registers a flush caller for the fires queued so far, unless they have all been delivered.
    mutating func addFlushWaiter(_ waiter: BusWaiter) {
        guard !isIdle else { return }
        flushWaiters.append((enqueuedCount, waiter))
        waiter.remaining += 1
    }

    /// Forgets a flush caller whose task was cancelled.
    mutating func removeFlushWaiter(_ waiter: BusWaiter) {
        flushWaiters.removeAll { $0.waiter === waiter }
    }

    @inline(__always)
    private mutating func recordBacklog() -> DeliveryBacklog? {
        let count = pending.count
        highWaterMark = max(highWaterMark, count)
        guard count >= nextBacklogReport else { return nil }
        return reportBacklog(count: count)
    }

    /// The backlog report for a queue that reached its next threshold, which doubles.
    @inline(never)
    private mutating func reportBacklog(count: Int) -> DeliveryBacklog {
        nextBacklogReport *= 2
        let now = MonotonicClock.nanoseconds
        let age = oldestPendingSince.map { now > $0 ? now - $0 : 0 } ?? 0
        return DeliveryBacklog(lane: name, pending: count, highWaterMark: highWaterMark, oldestAgeNanoseconds: age)
    }
}

extension DeliveryLane: Sendable {}
