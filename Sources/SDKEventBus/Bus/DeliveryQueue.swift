/// The fires waiting for the main actor, and the callers waiting for them to be delivered: plain
/// synchronous state, guarded by the bus's lock.
///
/// At most one drain is scheduled at a time. A fire that finds one scheduled joins it, so one
/// main-actor hop delivers every fire that arrived meanwhile, in order.
struct DeliveryQueue {
    /// One fire waiting for delivery.
    struct Delivery {
        let payload: EventPayloadValue
        /// The registry's next listener id when the event was fired: only listeners with a smaller
        /// id receive it.
        let mark: UInt64
        /// The one subscription a replay is for; `nil` for a fire, which goes to every listener.
        var target: EventListenerToken? = nil
    }

    /// What the drain takes in one round: the fires, and the listeners as they are now.
    struct Batch {
        var deliveries: [Delivery]
        var listeners: ListenerSnapshot
    }

    private var pending: [Delivery] = []
    /// The storage of the last delivered batch, emptied, kept to avoid reallocating per batch.
    private var spare: [Delivery] = []
    /// Whether a drain is scheduled or running: from the fire that schedules it until it finds
    /// nothing left to take.
    private(set) var isDrainScheduled = false
    private var enqueuedCount: UInt64 = 0
    private var deliveredCount: UInt64 = 0
    private var flushWaiters: [(target: UInt64, continuation: CheckedContinuation<Void, Never>)] = []

    /// Queues a fire.
    ///
    /// - Returns: `true` when the caller must schedule a drain on the main actor.
    mutating func enqueue(_ delivery: Delivery) -> Bool {
        pending.append(delivery)
        enqueuedCount += 1
        if isDrainScheduled { return false }
        isDrainScheduled = true
        return true
    }

    /// Takes every queued fire for delivery.
    ///
    /// - Returns: The fires, or `nil` when none is queued; the drain then ends and the next fire
    ///   schedules a new one.
    mutating func takeBatch(listeners: @autoclosure () -> ListenerSnapshot) -> Batch? {
        guard !pending.isEmpty else {
            isDrainScheduled = false
            return nil
        }
        var deliveries = spare
        swap(&deliveries, &pending)
        spare = []
        return Batch(deliveries: deliveries, listeners: listeners())
    }

    /// Records that a batch was delivered.
    ///
    /// - Parameters:
    ///   - count: How many fires the batch held.
    ///   - storage: The batch's emptied array, reused for a later batch.
    /// - Returns: The flush callers whose fires have all been delivered, to resume after unlocking.
    mutating func finishBatch(count: Int, recycling storage: [Delivery]) -> [CheckedContinuation<Void, Never>] {
        deliveredCount += UInt64(count)
        if spare.capacity < storage.capacity { spare = storage }
        guard let first = flushWaiters.first, first.target <= deliveredCount else { return [] }
        let done = flushWaiters.prefix { $0.target <= deliveredCount }
        flushWaiters.removeFirst(done.count)
        return done.map(\.continuation)
    }

    /// Registers a caller that waits until every fire queued so far has been delivered.
    ///
    /// - Returns: `true` when nothing is outstanding and the caller must resume `continuation` now.
    mutating func waitForDelivery(_ continuation: CheckedContinuation<Void, Never>) -> Bool {
        if isIdle { return true }
        flushWaiters.append((enqueuedCount, continuation))
        return false
    }

    /// Whether every fire queued so far has been delivered.
    var isIdle: Bool { deliveredCount == enqueuedCount }
}
