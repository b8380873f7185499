/// The state behind one ``EventBus`` and the whole fire → delivery path.
///
/// A fire takes the lock once to queue the payload with its mark and, if no drain is pending,
/// schedules one main-actor hop. The drain takes the lock once per batch to take every queued fire
/// and a snapshot of the buckets (an O(1) copy-on-write copy), then calls the callbacks with the
/// lock released. Per callback it does a closure call and an atomic cancelled-check, and allocates
/// nothing.
final class BusStorage: Sendable {
    /// Everything the lock guards.
    struct State {
        var registry: ListenerRegistry
        var queue = DeliveryQueue()
    }

    /// How many batches one main-actor hop delivers before it yields the main actor to other work.
    static let batchesPerHop = 16

    private let state: LockedValue<State>

    init() {
        state = LockedValue(State(registry: ListenerRegistry(busID: Self.makeBusID())))
    }

    // MARK: Subscriptions

    func subscribe(
        _ event: SystemEvent,
        callback: @escaping @MainActor @Sendable (EventPayloadValue) -> Void
    ) -> EventListenerToken {
        state.withLock { $0.registry.subscribe(event, callback: callback).1 }
    }

    func unsubscribe(_ token: EventListenerToken) {
        let removed = state.withLock { $0.registry.unsubscribe(token) }
        // Released here, outside the lock: the callback's captures may run a deinit.
        _ = consume removed
    }

    func listenerCount(for event: SystemEvent) -> Int {
        state.withLock { $0.registry.count(for: event) }
    }

    /// The capacity the registry holds, for tests that check storage returns to its baseline.
    var registryFootprint: Int {
        state.withLock { $0.registry.storageFootprint }
    }

    // MARK: Fire → delivery

    /// Queues `payload` for every listener of its event subscribed now.
    ///
    /// Never waits for callbacks.
    func enqueue(_ payload: EventPayloadValue) {
        let mustSchedule = state.withLock { state in
            state.queue.enqueue(DeliveryQueue.Delivery(payload: payload, mark: state.registry.nextID))
        }
        if mustSchedule { scheduleDrain() }
    }

    /// Returns once every fire queued before the call has been delivered.
    func flush() async {
        await withCheckedContinuation { continuation in
            let resumeNow = state.withLock { $0.queue.waitForDelivery(continuation) }
            if resumeNow { continuation.resume() }
        }
    }

    private func scheduleDrain() {
        Task { @MainActor in self.drain() }
    }

    /// Delivers queued fires on the main actor until none is left.
    @MainActor
    private func drain() {
        for _ in 0..<Self.batchesPerHop {
            guard var batch = state.withLock({ $0.queue.takeBatch(listeners: $0.registry.buckets) }) else {
                return
            }
            for delivery in batch.deliveries {
                // Listeners are in subscription order: stop at the first one subscribed after the fire.
                for case let listener? in batch.buckets[delivery.payload.event.ordinal].entries {
                    guard listener.id < delivery.mark else { break }
                    listener.deliver(delivery.payload)
                }
            }
            // Drop the snapshot first, so that ended subscriptions are released before flush returns.
            batch.buckets = []
            let count = batch.deliveries.count
            batch.deliveries.removeAll(keepingCapacity: true)
            let flushed = state.withLock { $0.queue.finishBatch(count: count, recycling: batch.deliveries) }
            for continuation in flushed { continuation.resume() }
        }
        // Still busy: let other main-actor work run, then continue.
        scheduleDrain()
    }

    private static let busIDs = LockedValue(UInt64(0))

    private static func makeBusID() -> UInt64 {
        busIDs.withLock { id in
            id += 1
            return id
        }
    }
}
