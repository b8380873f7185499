/// Where a subscription's callbacks run: the engine keeps one lane per place.
enum LaneSelector: @unchecked Sendable {
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
struct DeliveryLane {
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

    init(name: String, layout: PayloadLayout, actor: (any Actor)? = nil) {
        self.name = name
        self.actor = actor
        actorID = actor.map { ObjectIdentifier($0) }
        pending = DeliveryBuffer(layout: layout)
        spare = DeliveryBuffer(layout: layout)
    }

    /// How many deliveries the lane's two buffers hold room for: the memory they keep (once a batch
    /// is delivered, at most a segment each).
    var bufferCapacity: Int { pending.capacity + spare.capacity }

    /// Whether every fire queued on the lane has been delivered.
    var isIdle: Bool { enqueuedCount == deliveredCount }

    /// Whether the lane can be reused for another actor: nothing subscribed, queued or running.
    var isVacant: Bool { liveCount == 0 && !isDraining && !isPassActive && pending.isEmpty }

    // MARK: Queue

    /// Queues a delivery.
    ///
    /// - Returns: Whether the caller must schedule a drain, and a backlog report if the queue
    ///   reached a new threshold.
    mutating func enqueue(
        _ header: DeliveryHeader,
        payload: UnsafeRawPointer
    ) -> (mustSchedule: Bool, backlog: DeliveryBacklog?) {
        if pending.isEmpty { oldestPendingSince = SystemTimerClock().nanoseconds }
        pending.append(header, payload: payload)
        enqueuedCount += 1
        let backlog = recordBacklog()
        if isDraining { return (false, backlog) }
        isDraining = true
        return (true, backlog)
    }

    /// Counts a fire that the caller delivers at once, without queueing it.
    mutating func startInlineDelivery() {
        enqueuedCount += 1
        isDraining = true
        isPassActive = true
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
        nextBacklogReport = Self.backlogThreshold
        isPassActive = true
        return batch
    }

    /// The batch the pass held between two jobs, or else every queued delivery (see
    /// ``takeBatch()``).
    mutating func resumeOrTakeBatch() -> HeldBatch? {
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
    /// Out of line, for the reason of `BusStorage.State.resumeOffWaiters(lane:into:)`: the batch's
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

    private mutating func recordBacklog() -> DeliveryBacklog? {
        let count = pending.count
        highWaterMark = max(highWaterMark, count)
        guard count >= nextBacklogReport else { return nil }
        nextBacklogReport *= 2
        let now = SystemTimerClock().nanoseconds
        let age = oldestPendingSince.map { now > $0 ? now - $0 : 0 } ?? 0
        return DeliveryBacklog(lane: name, pending: count, highWaterMark: highWaterMark, oldestAgeNanoseconds: age)
    }
}

extension DeliveryLane: Sendable {}
