/// The state behind one bus and the whole fire → delivery path: the one engine every kind of bus
/// in the package runs on.
///
/// It is generic over the payload a fire carries, and keeps everything else — the registry, the
/// passes, the hot loop — free of it: callbacks are stored erased (``ErasedCallback``) and called
/// with the payload's address, so the loop is the same machine code for every catalogue.
///
/// A fire takes the lock once: it queues the payload for each lane that has listeners of its event
/// and, when a lane has no drain under way, schedules one (one main-actor or actor job per batch of
/// fires). The immediate lane is delivered on the firing thread right after the lock, unless
/// another thread is delivering on it, which then delivers this fire next. A pass reads each
/// listener in place; ending a subscription marks its entry, so it never copies a bucket.
///
/// See ``PassCursor`` for how ending a subscription learns whether a running pass may still call it.
final class BusStorage<Payload: Sendable>: SubscriptionIssuer, @unchecked Sendable {
    // @unchecked: all mutable state is in `state`, behind its lock; the rest is immutable.

    static var mainLane: Int { 0 }
    static var immediateLane: Int { 1 }
    /// How many batches one main-actor or actor job delivers before it yields its executor.
    static var batchesPerJob: Int { 16 }

    struct State {
        var registry: ListenerRegistry
        var lanes: [DeliveryLane<Payload>]
        /// The lane of each actor that has subscriptions.
        var actorLanes: [ObjectIdentifier: Int] = [:]
        var vacantLanes: [Int] = []
        /// Per event, its replay rule and the latest payload it replays.
        var replayRules: [ReplayRule]
        var latest: [Payload?]
    }

    let busID: UInt64
    let state: LockedValue<State>
    let diagnostics: (@Sendable (BusDiagnostic) -> Void)?
    /// Where a delivery keeps its payload, to hand passes its address.
    private let payloadOffset = MemoryLayout<Delivery<Payload>>.offset(of: \Delivery<Payload>.payload)!

    init(replayRules: [ReplayRule], diagnostics: (@Sendable (BusDiagnostic) -> Void)?) {
        busID = Self.makeBusID()
        self.diagnostics = diagnostics
        state = LockedValue(
            State(
                registry: ListenerRegistry(busID: busID, eventCount: replayRules.count),
                lanes: [DeliveryLane(name: "main actor"), DeliveryLane(name: "immediate")],
                replayRules: replayRules,
                latest: Array(repeating: nil, count: replayRules.count)
            )
        )
    }

    // MARK: Subscribing

    /// Subscribes, and queues (or delivers) the replay the new listener is owed, under one lock so
    /// that the replay is ordered before any later fire.
    ///
    /// - Parameters:
    ///   - event: The event's index.
    ///   - selector: Where the callback runs.
    ///   - lifetime: The owner and end hook, if any.
    ///   - replayLatest: Whether to replay the latest payload of a ``ReplayRule/latestOnRequest`` event.
    ///   - makeCallback: Makes the callback, given the subscription's own token.
    /// - Returns: The token. On a shut-down bus it is inert and the end hook has already run.
    func subscribe(
        event: Int,
        lane selector: LaneSelector,
        lifetime: SubscriptionLifetime? = nil,
        replayLatest: Bool = false,
        makeCallback: (EventListenerToken) -> ErasedCallback
    ) -> EventListenerToken {
        var work = AfterUnlock()
        let (token, inline) = state.withLock { state -> (EventListenerToken, InlineDelivery?) in
            if lifetime?.ownerID != nil { state.end(state.registry.sweepDeadOwnersIfDue(), into: &work) }
            let lane = state.lane(for: selector)
            let (token, bucket) = state.registry.subscribe(
                event: event,
                lane: lane,
                lifetime: lifetime,
                token: { EventListenerToken(busID: busID, listenerID: $0, slot: $1, issuer: self) },
                makeCallback: makeCallback
            )
            guard let bucket else {
                work.lifetimes.append(contentsOf: lifetime.map { [$0] } ?? [])
                return (token, nil)
            }
            state.lanes[lane].liveCount += 1
            guard let replay = state.replay(for: event, asked: replayLatest) else { return (token, nil) }
            var delivery = Delivery(payload: replay, bucket: .passUnretained(bucket), mark: .max)
            delivery.targetID = token.listenerID
            delivery.targetSlot = token.slot
            return (token, state.route(delivery, toLane: lane, work: &work))
        }
        work.run(diagnostics: diagnostics, storage: self)
        if let inline { deliverImmediately(inline) }
        return token
    }

    // MARK: Ending subscriptions

    /// Ends a subscription without waiting: from `deinit`, callbacks, any thread.
    ///
    /// A pass on another thread that is calling the callback at this moment may finish it, and one
    /// that has already reached it may still call it once; the pass releases it when it moves on.
    func cancel(_ token: EventListenerToken) {
        var work = AfterUnlock()
        state.withLock { state in
            guard let ended = state.registry.end(token) else { return }
            _ = state.end(ended, into: &work)
        }
        work.run(diagnostics: diagnostics, storage: self)
    }

    /// Ends a subscription, and returns once no callback of it can run any more.
    ///
    /// Waits only while the pass of its lane may still call it (it is at that listener or before
    /// it in the same fire); otherwise returns after the lock. Never waits for a busy executor.
    func off(_ token: EventListenerToken) async {
        var work = AfterUnlock()
        let waitFor = state.withLock { state -> (lane: Int, bucket: Int, id: UInt64)? in
            guard let ended = state.registry.end(token) else { return nil }
            return state.end(ended, into: &work) ? (ended.bucket.lane, ended.bucket.number, ended.id) : nil
        }
        work.run(diagnostics: diagnostics, storage: self)
        guard let waitFor else { return }
        await withCheckedContinuation { (continuation: CheckedContinuation<Void, Never>) in
            let waiting = state.withLock { state in
                let lane = waitFor.lane
                guard state.lanes[lane].isPassActive,
                    state.lanes[lane].cursor.mayCall(bucket: waitFor.bucket, id: waitFor.id)
                else { return false }
                state.lanes[lane].offWaiters.append(continuation)
                state.lanes[lane].cursor.request()
                return true
            }
            if !waiting { continuation.resume() }
            let watchers = state.withLock { state in
                defer { state.lanes[waitFor.lane].satisfiedOffWaiterWatchers = [] }
                return state.lanes[waitFor.lane].satisfiedOffWaiterWatchers
            }
            for watcher in watchers { watcher.resume() }
        }
    }

    /// Returns once at least `count` `off` callers wait for the pass of `lane`: a hook for tests
    /// that must know an `off` is waiting before they let the pass go on.
    func waitForOffWaiters(_ count: Int, lane: Int) async {
        await withCheckedContinuation { (continuation: CheckedContinuation<Void, Never>) in
            let now = state.withLock { state -> Bool in
                guard state.lanes[lane].offWaiters.count < count else { return true }
                state.lanes[lane].offWaiterWatchers.append((count, continuation))
                return false
            }
            if now { continuation.resume() }
        }
    }

    /// Ends every subscription bound to `owner`.
    func cancelAll(ownedBy owner: AnyObject) {
        let ownerID = ObjectIdentifier(owner)
        var work = AfterUnlock()
        state.withLock { state in _ = state.end(state.registry.endAll(ownedBy: ownerID), into: &work) }
        work.run(diagnostics: diagnostics, storage: self)
    }

    /// The number of live subscriptions to `event`, after ending those whose owner is gone.
    func listenerCount(for event: Int) -> Int {
        var work = AfterUnlock()
        let count = state.withLock { state in
            state.end(state.registry.sweepDeadOwners(), into: &work)
            return state.registry.count(for: event)
        }
        work.run(diagnostics: diagnostics, storage: self)
        return count
    }

    /// Ends every subscription (sequences finish) and makes later fires and subscriptions inert.
    ///
    /// Fires already queued are dropped: their listeners have ended.
    func shutDown() {
        var work = AfterUnlock()
        state.withLock { state in
            state.end(state.registry.close(), into: &work)
            for lane in state.lanes.indices {
                work.continuations += state.lanes[lane].dropPending()
            }
            state.latest = state.latest.map { _ in nil }
        }
        work.run(diagnostics: diagnostics, storage: self)
    }

    /// The capacity the registry holds, for tests that check storage returns to its baseline.
    var registryFootprint: Int {
        state.withLock { $0.registry.storageFootprint }
    }

    // MARK: Fire → delivery

    /// Delivers `payload` to every listener of `event` subscribed now: queued for the main actor and
    /// actor lanes, and on this thread for the immediate lane.
    ///
    /// Never waits for callbacks of other lanes.
    func fire(_ payload: Payload, event: Int) {
        var work = AfterUnlock()
        let inline = state.withLock { state -> InlineDelivery? in
            guard !state.registry.isClosed else { return nil }
            if state.replayRules[event] != .none { state.latest[event] = payload }
            let mark = state.registry.nextID
            var inline: InlineDelivery?
            for number in state.registry.routes[event] {
                let bucket = state.registry.buckets[number]
                guard bucket.liveCount > 0 else { continue }
                let delivery = Delivery(payload: payload, bucket: .passUnretained(bucket), mark: mark)
                if let started = state.route(delivery, toLane: bucket.lane, work: &work) { inline = started }
            }
            return inline
        }
        work.run(diagnostics: diagnostics, storage: self)
        if let inline { deliverImmediately(inline) }
    }

    /// Returns once every fire queued before the call, on every lane, has been delivered.
    func flush() async {
        await withCheckedContinuation { (continuation: CheckedContinuation<Void, Never>) in
            let waiter = FlushWaiter(continuation)
            let nothingOutstanding = state.withLock { state in
                for lane in state.lanes.indices { state.lanes[lane].addFlushWaiter(waiter) }
                return waiter.remaining == 0
            }
            if nothingOutstanding { continuation.resume() }
        }
    }

    // MARK: Passes

    /// A delivery the caller runs on its own thread right away: the immediate lane was idle.
    struct InlineDelivery {
        let delivery: Delivery<Payload>
    }

    /// Delivers an immediate fire on this thread, then whatever was queued on the lane meanwhile.
    private func deliverImmediately(_ inline: InlineDelivery) {
        let lane = Self.immediateLane
        let cursor = state.withLock { $0.lanes[lane].cursor }
        withUnsafePointer(to: inline.delivery) { deliver($0, lane: lane, cursor: cursor) }
        finish(lane: lane, count: 1, recycling: [])
        while drainBatch(lane: lane, cursor: cursor) {}
    }

    /// Schedules a main-actor job that drains the main lane.
    func scheduleMainDrain() {
        Task { @MainActor in self.drainJob(lane: Self.mainLane) }
    }

    /// Schedules a job on `actor` that drains its lane.
    func scheduleDrain(lane: Int, on actor: any Actor) {
        Task { await self.drain(lane: lane, isolatedTo: actor) }
    }

    private func drain(lane: Int, isolatedTo actor: isolated any Actor) {
        drainJob(lane: lane)
    }

    /// Delivers queued batches on the lane's executor, yielding it after ``batchesPerJob``.
    private func drainJob(lane: Int) {
        let cursor = state.withLock { $0.lanes[lane].cursor }
        for _ in 0..<Self.batchesPerJob {
            guard drainBatch(lane: lane, cursor: cursor) else { return }
        }
        // Still busy: let other work on this executor run, then continue.
        let actor = state.withLock { $0.lanes[lane].actor }
        if lane == Self.mainLane {
            scheduleMainDrain()
        } else if let actor {
            scheduleDrain(lane: lane, on: actor)
        } else {
            state.withLock { $0.lanes[lane].isDraining = false }
        }
    }

    /// Takes and delivers one batch.
    ///
    /// - Returns: Whether there was one; when not, the lane's drain has ended.
    private func drainBatch(lane: Int, cursor: PassCursor) -> Bool {
        guard var batch = state.withLock({ $0.lanes[lane].takeBatch() }) else { return false }
        batch.withUnsafeBufferPointer { deliveries in
            for index in deliveries.indices {
                deliver(deliveries.baseAddress.unsafelyUnwrapped + index, lane: lane, cursor: cursor)
            }
        }
        let count = batch.count
        batch.removeAll(keepingCapacity: true)
        finish(lane: lane, count: count, recycling: batch)
        return true
    }

    /// Ends a pass: releases what it deferred, compacts what it kept from compacting, and resumes
    /// the `off` and `flush` callers it was holding.
    private func finish(lane: Int, count: Int, recycling storage: [Delivery<Payload>]) {
        var work = AfterUnlock()
        state.withLock { state in
            work.continuations += state.lanes[lane].finishBatch(count: count, recycling: storage)
            state.actOnRequests(lane: lane, into: &work)
            let due = state.lanes[lane].bucketsDueForCompaction
            state.lanes[lane].bucketsDueForCompaction = []
            for bucket in due { state.tidy(bucket) }
            state.vacate(lane: lane)
        }
        work.run(diagnostics: diagnostics, storage: self)
    }

    /// Acts on what enders asked while the pass runs; called by the pass between callbacks.
    private func actOnRequests(lane: Int) {
        var work = AfterUnlock()
        state.withLock { state in state.actOnRequests(lane: lane, into: &work) }
        work.run(diagnostics: diagnostics, storage: self)
    }

    /// Delivers one fire or replay.
    @inline(__always)
    private func deliver(_ delivery: UnsafePointer<Delivery<Payload>>, lane: Int, cursor: PassCursor) {
        let payload = UnsafeRawPointer(delivery) + payloadOffset
        let bucket = delivery.pointee.bucket.takeUnretainedValue()
        if delivery.pointee.isReplay {
            let target = state.withLock { state -> UnsafeMutablePointer<ListenerEntry>? in
                let token = EventListenerToken(
                    busID: busID, listenerID: delivery.pointee.targetID, slot: delivery.pointee.targetSlot, issuer: nil)
                return state.registry.entry(of: token)?.entry
            }
            guard let target else { return }
            DeliveryPass.call(target, payload: payload, bucket: bucket, cursor: cursor) { actOnRequests(lane: lane) }
        } else {
            DeliveryPass.run(payload: payload, bucket: bucket, mark: delivery.pointee.mark, cursor: cursor) {
                actOnRequests(lane: lane)
            }
        }
    }

    private static func makeBusID() -> UInt64 {
        busIDs.withLock { id in
            id += 1
            return id
        }
    }

    private static var busIDs: LockedValue<UInt64> { BusIDs.counter }
}

/// The counter of bus ids, shared by every payload type.
private enum BusIDs {
    static let counter = LockedValue(UInt64(0))
}

extension BusStorage.State {
    /// The lane for `selector`, created for an actor on its first subscription.
    mutating func lane(for selector: LaneSelector) -> Int {
        switch selector {
        case .mainActor: return BusStorage<Payload>.mainLane
        case .immediate: return BusStorage<Payload>.immediateLane
        case .actor(let actor):
            let id = ObjectIdentifier(actor)
            if let lane = actorLanes[id], lanes[lane].actor != nil { return lane }
            let name = "actor \(type(of: actor))"
            let lane: Int
            if let vacant = vacantLanes.popLast() {
                lane = vacant
                lanes[lane].actor = actor
                lanes[lane].name = name
            } else {
                lane = lanes.count
                lanes.append(DeliveryLane(name: name, actor: actor))
            }
            actorLanes[id] = lane
            return lane
        }
    }

    /// The payload a new subscription to `event` is owed by replay, if any.
    func replay(for event: Int, asked: Bool) -> Payload? {
        switch replayRules[event] {
        case .sticky: latest[event]
        case .latestOnRequest: asked ? latest[event] : nil
        case .none: nil
        }
    }

    /// Queues a delivery on its lane, scheduling the lane's drain if needed.
    ///
    /// - Returns: For the immediate lane when it was idle, the delivery for the caller to run now.
    mutating func route(
        _ delivery: Delivery<Payload>,
        toLane lane: Int,
        work: inout AfterUnlock
    ) -> BusStorage<Payload>.InlineDelivery? {
        if lane == BusStorage<Payload>.immediateLane, !lanes[lane].isDraining {
            lanes[lane].startInlineDelivery()
            return .init(delivery: delivery)
        }
        let (mustSchedule, backlog) = lanes[lane].enqueue(delivery)
        if let backlog { work.diagnostics.append(.backlog(backlog)) }
        guard mustSchedule else { return nil }
        switch lane {
        case BusStorage<Payload>.mainLane:
            work.scheduleMain = true
        case BusStorage<Payload>.immediateLane:
            break
        default:
            if let actor = lanes[lane].actor {
                work.actorDrains.append((lane, actor))
            } else {
                // The actor is gone: so are its subscriptions.
                lanes[lane].isDraining = false
                end(registry.endAll(inLane: lane), into: &work)
                work.continuations += lanes[lane].dropPending()
            }
        }
        return nil
    }

    /// Finishes ending subscriptions the registry has marked: releases their callbacks now, or
    /// defers that to the pass of their lane if it may be calling them; then tidies their buckets.
    ///
    /// Every callback is taken before any bucket is tidied: tidying moves entries, and the
    /// positions in `ended` are those from before.
    ///
    /// - Returns: Whether any of them may be being called by a running pass.
    @discardableResult
    mutating func end(_ ended: [ListenerRegistry.Ended], into work: inout AfterUnlock) -> Bool {
        var mayBeCalled = false
        for subscription in ended where release(subscription, into: &work) { mayBeCalled = true }
        for subscription in ended { tidy(subscription.bucket) }
        return mayBeCalled
    }

    /// Finishes ending one subscription; see ``end(_:into:)-([ListenerRegistry.Ended],_)``.
    mutating func end(_ ended: ListenerRegistry.Ended, into work: inout AfterUnlock) -> Bool {
        end([ended], into: &work)
    }

    mutating func end(_ sweep: ListenerRegistry.Sweep, into work: inout AfterUnlock) {
        end(sweep.ended, into: &work)
        work.liveOwners += sweep.liveOwners
    }

    /// Takes an ended subscription's callback for release after unlocking, unless the running pass
    /// of its lane may be calling it: the pass releases it then, when it moves on.
    ///
    /// - Returns: Whether the pass may be calling it.
    private mutating func release(_ ended: ListenerRegistry.Ended, into work: inout AfterUnlock) -> Bool {
        let lane = ended.bucket.lane
        lanes[lane].liveCount -= 1
        if let lifetime = ended.lifetime { work.lifetimes.append(lifetime) }
        if lanes[lane].isPassActive, lanes[lane].cursor.mayCall(bucket: ended.bucket.number, id: ended.id) {
            lanes[lane].deferredReleases.append((ended.bucket, ended.position))
            lanes[lane].cursor.request()
            return true
        }
        work.callbacks.append(ended.bucket.takeCallback(at: ended.position))
        return false
    }

    /// Drops a bucket's trailing holes and compacts it if due, unless a pass of its lane runs (the
    /// pass then does it when it finishes); frees its lane if nothing is left in it.
    mutating func tidy(_ bucket: ListenerBucket) {
        let lane = bucket.lane
        guard !lanes[lane].isPassActive else {
            lanes[lane].bucketsDueForCompaction.append(bucket)
            return
        }
        bucket.trimTrailingHoles()
        if bucket.isDueForCompaction { registry.compact(bucket) }
        vacate(lane: lane)
    }

    /// Releases the callbacks the pass deferred and resumes the `off` callers waiting for it.
    ///
    /// Called by the pass itself, between callbacks or at its end: it is calling nothing now, and
    /// taking the lock orders every later read of an entry's state after the ends it acts on.
    mutating func actOnRequests(lane: Int, into work: inout AfterUnlock) {
        for (bucket, position) in lanes[lane].deferredReleases {
            work.callbacks.append(bucket.takeCallback(at: position))
        }
        lanes[lane].deferredReleases = []
        work.continuations += lanes[lane].offWaiters
        lanes[lane].offWaiters = []
        lanes[lane].cursor.clearRequests()
    }

    /// Frees an actor lane that has nothing left, so that another actor can use it.
    mutating func vacate(lane: Int) {
        guard lane > BusStorage<Payload>.immediateLane, lanes[lane].isVacant, let actor = lanes[lane].actor else {
            return
        }
        actorLanes[ObjectIdentifier(actor)] = nil
        lanes[lane].actor = nil
        vacantLanes.append(lane)
    }
}

/// What a locked section leaves to do once the lock is released: it may run user code.
struct AfterUnlock {
    /// Callbacks of ended subscriptions: releasing them may run the deinit of what they captured.
    var callbacks: [ErasedCallback] = []
    /// Lifetimes of ended subscriptions, whose end hooks run (a sequence finishes).
    var lifetimes: [SubscriptionLifetime] = []
    /// Owners a sweep looked at, released here in case the sweep held the last reference.
    var liveOwners: [any AnyObject & Sendable] = []
    /// `flush` and `off` callers to resume.
    var continuations: [CheckedContinuation<Void, Never>] = []
    var diagnostics: [BusDiagnostic] = []
    var scheduleMain = false
    var actorDrains: [(lane: Int, actor: any Actor)] = []

    /// Does it all: end hooks, releases, drains, then resumes waiters.
    mutating func run<Payload>(diagnostics hook: (@Sendable (BusDiagnostic) -> Void)?, storage: BusStorage<Payload>) {
        for lifetime in lifetimes { lifetime.onEnd?() }
        callbacks = []
        liveOwners = []
        if scheduleMain { storage.scheduleMainDrain() }
        for (lane, actor) in actorDrains { storage.scheduleDrain(lane: lane, on: actor) }
        for diagnostic in diagnostics { hook?(diagnostic) }
        for continuation in continuations { continuation.resume() }
    }
}

/// The fire → delivery hot loop, free of any payload type.
enum DeliveryPass {
    /// Calls, in subscription order, every live listener of `bucket` subscribed before `mark`.
    ///
    /// Per listener: one store of the cursor, one atomic load of its state, the call, and one load
    /// of the request flag. No lock, no allocation, no retain of the listener.
    @inline(__always)
    static func run(
        payload: UnsafeRawPointer,
        bucket: ListenerBucket,
        mark: UInt64,
        cursor: PassCursor,
        onRequest: () -> Void
    ) {
        if cursor.enter(bucket.number) { onRequest() }
        bucket.forEachChunk(upTo: bucket.publishedCount) { entries, count in
            for index in 0..<count {
                let entry = entries + index
                let id = entry.pointee.id
                // Listeners are in subscription order: stop at the first one subscribed after the fire.
                guard id < mark else { return false }
                cursor.move(to: id)
                guard ListenerEntry.isLive(entry) else { continue }
                entry.pointee.callback.function(payload)
                if cursor.hasRequests { onRequest() }
            }
            return true
        }
        cursor.leave()
    }

    /// Calls one listener, for a replay owed to it.
    static func call(
        _ entry: UnsafeMutablePointer<ListenerEntry>,
        payload: UnsafeRawPointer,
        bucket: ListenerBucket,
        cursor: PassCursor,
        onRequest: () -> Void
    ) {
        if cursor.enter(bucket.number) { onRequest() }
        cursor.move(to: entry.pointee.id)
        if ListenerEntry.isLive(entry) {
            entry.pointee.callback.function(payload)
        }
        cursor.leave()
        if cursor.hasRequests { onRequest() }
    }
}
