/// The state behind one ``EventBus`` and the whole fire → delivery path.
///
/// A fire takes the lock once to queue the payload with its mark and, if no drain is pending,
/// schedules one main-actor hop. The drain takes the lock once per batch to take every queued fire
/// and a snapshot of the buckets (an O(1) copy-on-write copy), then calls the callbacks with the
/// lock released. Per callback it reads the cancellation epoch (one atomic load) and calls the
/// closure, and allocates nothing.
///
/// Every removal of a listener increments the epoch under the lock (the registry does it). When the drain sees it change,
/// it takes a fresh snapshot and carries on after the last listener it called, so a listener whose
/// subscription ended is never called again, even for fires already queued.
final class BusStorage: Sendable {
    typealias Callback = ListenerRegistry.Callback

    /// Everything the lock guards.
    struct State {
        var registry: ListenerRegistry
        var queue = DeliveryQueue()
    }

    /// How many batches one main-actor hop delivers before it yields the main actor to other work.
    static let batchesPerHop = 16

    private let state: LockedValue<State>
    /// Incremented by the registry, under the lock, whenever a subscription ends.
    private let cancellationEpoch = AtomicCounter()

    init() {
        let registry = ListenerRegistry(busID: Self.makeBusID(), cancellationEpoch: cancellationEpoch)
        state = LockedValue(State(registry: registry))
    }

    // MARK: Subscriptions

    /// Subscribes, and queues the replay the new listener is owed, under one lock so that the replay
    /// is ordered before any later fire.
    ///
    /// - Parameters:
    ///   - event: The event to subscribe to.
    ///   - lifetime: The owner and end hook, if any.
    ///   - replayLatest: Whether to replay the latest payload of a ``ReplayRule/latestOnRequest`` event.
    ///   - makeCallback: Makes the callback, given the subscription's own token.
    /// - Returns: The subscription's token. On a shut-down bus the token is inert and the end hook
    ///   has already run.
    func subscribe(
        _ event: SystemEvent,
        lifetime: SubscriptionLifetime? = nil,
        replayLatest: Bool = false,
        makeCallback: (EventListenerToken) -> Callback
    ) -> EventListenerToken {
        let (subscription, mustSchedule, swept) = state.withLock { state in
            let swept = lifetime?.ownerID == nil ? .init() : state.registry.sweepDeadOwnersIfDue()
            let subscription = state.registry.subscribe(
                event,
                lifetime: lifetime,
                replayLatest: replayLatest,
                makeCallback: makeCallback
            )
            guard let replay = subscription.replay else { return (subscription, false, swept) }
            let delivery = DeliveryQueue.Delivery(payload: replay, mark: .max, target: subscription.token)
            return (subscription, state.queue.enqueue(delivery), swept)
        }
        if !subscription.isLive { lifetime?.onEnd?() }
        end(swept.removed)
        _ = consume swept  // the live owners it held are released here, outside the lock
        if mustSchedule { scheduleDrain() }
        return subscription.token
    }

    func subscribe(_ event: SystemEvent, callback: @escaping Callback) -> EventListenerToken {
        subscribe(event) { _ in callback }
    }

    /// Ends a subscription.
    ///
    /// - Returns: Whether a drain was scheduled or running when it ended: a callback that its
    ///   pass had already reached may still be running.
    @discardableResult
    func unsubscribe(_ token: EventListenerToken) -> Bool {
        let (removed, isDraining) = state.withLock { state in
            (state.registry.unsubscribe(token), state.queue.isDrainScheduled)
        }
        guard let removed else { return false }
        removed.runEndHook()
        return isDraining
    }

    /// Ends a subscription, and returns only when no callback of it can begin any more: when a
    /// drain is under way and the caller is not on the main actor, it waits for the drain's current
    /// main-actor job. (A drain that has not started yet takes its snapshot after this removal.)
    func unsubscribe(_ token: EventListenerToken, isolation: isolated (any Actor)?) async {
        guard unsubscribe(token), isolation !== MainActor.shared else { return }
        await MainActor.run {}
    }

    func unsubscribeAll(ownedBy owner: AnyObject) {
        let ownerID = ObjectIdentifier(owner)
        end(state.withLock { $0.registry.unsubscribeAll(ownedBy: ownerID) })
    }

    func listenerCount(for event: SystemEvent) -> Int {
        let (count, swept) = state.withLock { state in
            let swept = state.registry.sweepDeadOwners()
            return (state.registry.count(for: event), swept)
        }
        end(swept.removed)
        return count  // the live owners `swept` held are released here, outside the lock
    }

    /// Ends every subscription (sequences finish) and makes later fires and subscriptions inert.
    ///
    /// Fires already queued are not delivered: their listeners have ended.
    func shutDown() {
        end(state.withLock { $0.registry.close() })
    }

    /// The capacity the registry holds, for tests that check storage returns to its baseline.
    var registryFootprint: Int {
        state.withLock { $0.registry.storageFootprint }
    }

    /// Runs the end hooks of removed subscriptions and releases them, outside the lock: both may
    /// run user code (a sequence's termination, the deinit of objects a callback captured).
    private func end(_ removed: [ListenerRegistry.Removed]) {
        for subscription in removed { subscription.runEndHook() }
    }

    // MARK: Fire → delivery

    /// Queues `payload` for every listener of its event subscribed now.
    ///
    /// Never waits for callbacks.
    func enqueue(_ payload: EventPayloadValue) {
        let mustSchedule = state.withLock { state in
            guard !state.registry.isClosed else { return false }
            state.registry.recordFired(payload)
            return state.queue.enqueue(DeliveryQueue.Delivery(payload: payload, mark: state.registry.nextID))
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
            guard var batch = state.withLock({ $0.queue.takeBatch(listeners: takeSnapshot(of: $0.registry)) }) else {
                return
            }
            for delivery in batch.deliveries {
                if let target = delivery.target {
                    replay(delivery.payload, to: target)
                } else {
                    deliver(delivery, listeners: &batch.listeners)
                }
            }
            let count = batch.deliveries.count
            batch.deliveries.removeAll(keepingCapacity: true)
            let flushed = state.withLock { $0.queue.finishBatch(count: count, recycling: batch.deliveries) }
            // Release the snapshot only after that lock, which follows every read of it: once the
            // registry's buffers are unique again it may write them in place, and the lock is what
            // orders those writes after this loop's reads. Release it before flush callers resume,
            // and before this main-actor job ends (which a caller of `off` off the main actor waits
            // for), so that ended subscriptions are released by the time either returns.
            batch.listeners = .empty
            for continuation in flushed { continuation.resume() }
        }
        // Still busy: let other main-actor work run, then continue.
        scheduleDrain()
    }

    /// Calls, in subscription order, every listener of the fire's event subscribed before it.
    @MainActor
    private func deliver(_ delivery: DeliveryQueue.Delivery, listeners: inout ListenerSnapshot) {
        let ordinal = delivery.payload.event.ordinal
        var resumeFrom: UInt64? = 0
        while let from = resumeFrom {
            resumeFrom = listeners.buckets[ordinal].entries.withUnsafeBufferPointer { entries in
                deliver(delivery, to: entries, from: from, epoch: listeners.epoch)
            }
            if resumeFrom != nil {
                // A subscription ended meanwhile: look again and go on from where the pass stopped.
                listeners = state.withLock { takeSnapshot(of: $0.registry) }
            }
        }
    }

    /// One pass over a snapshot of a bucket: the fire → delivery hot loop.
    ///
    /// Reads each entry in place, so a callback costs one atomic load, two comparisons and the
    /// closure call.
    ///
    /// - Returns: `nil` when the pass is complete; otherwise the listener id to resume from after a
    ///   fresh snapshot, because a subscription ended (the epoch moved).
    @MainActor
    @inline(__always)
    private func deliver(
        _ delivery: DeliveryQueue.Delivery,
        to entries: UnsafeBufferPointer<ListenerRegistry.Entry>,
        from firstID: UInt64,
        epoch: UInt64
    ) -> UInt64? {
        guard let base = entries.baseAddress else { return nil }
        var index = firstID == 0 ? 0 : ListenerSnapshot.resumeIndex(in: entries, from: firstID)
        while index < entries.count {
            let entry = base + index
            index += 1
            if entry.pointee.isHole { continue }
            // Listeners are in subscription order: stop at the first one subscribed after the fire.
            guard entry.pointee.id < delivery.mark else { return nil }
            guard cancellationEpoch.load() == epoch else { return entry.pointee.id }
            entry.pointee.callback(delivery.payload)
        }
        return nil
    }

    /// Delivers a replayed payload to the one subscription it is owed to, if it is still live.
    @MainActor
    private func replay(_ payload: EventPayloadValue, to token: EventListenerToken) {
        guard let callback = state.withLock({ $0.registry.callback(of: token) }) else { return }
        callback(payload)
    }

    /// The live listeners and the epoch they match; call it under the lock.
    private func takeSnapshot(of registry: ListenerRegistry) -> ListenerSnapshot {
        ListenerSnapshot(buckets: registry.buckets, epoch: cancellationEpoch.load())
    }

    private static let busIDs = LockedValue(UInt64(0))

    private static func makeBusID() -> UInt64 {
        busIDs.withLock { id in
            id += 1
            return id
        }
    }
}
