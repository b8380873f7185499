/// The state behind one bus and the whole fire → delivery path: the one engine every kind of bus
/// in the package runs on.
///
/// It is not generic. Payloads are copied in and destroyed through the bus's ``PayloadLayout`` and
/// handed to passes by address; callbacks are stored erased (``ErasedCallback``). So the engine is
/// the same compiled code for every catalogue, the built-in one and those declared in other
/// modules, with no generic metadata to look up on the fire → delivery path.
///
/// A fire takes the lock once: it queues the payload for each lane that has listeners of its event
/// and, when a lane has no drain under way, schedules one (one main-actor or actor job per batch of
/// fires). The immediate lane is delivered on the firing thread right after the lock, unless
/// another thread is delivering on it, which then delivers this fire next. A pass reads each
/// listener in place; ending a subscription marks its entry, so it never copies a bucket.
///
/// See ``PassCursor`` for how ending a subscription learns whether a running pass may still call it.
final class BusStorage: SubscriptionIssuer, @unchecked Sendable {
    // @unchecked: all mutable state is in `state`, behind its lock; the rest is immutable.

    static let mainLane = 0
    static let immediateLane = 1
    /// How many batches one main-actor or actor job delivers before it yields its executor.
    static let batchesPerJob = 16

    struct State {
        var registry: ListenerRegistry
        var lanes: [DeliveryLane]
        /// The lane of each actor that has subscriptions.
        var actorLanes: [ObjectIdentifier: Int] = [:]
        var vacantLanes: [Int] = []
        /// Per event, its replay rule.
        var replayRules: [ReplayRule]
        /// Per event, the latest payload it replays.
        var latest: ReplayStore
        /// For buses whose events are types (app events): each type's event index, added on first
        /// use, so that a fire looks its event up with one hash lookup under the lock it takes anyway.
        var eventsByKey: [ObjectIdentifier: Int] = [:]
        let layout: PayloadLayout
    }

    let busID: UInt64
    let state: LockedValue<State>
    let diagnostics: (@Sendable (BusDiagnostic) -> Void)?
    /// The cursors of the two lanes every bus has, read without the lock.
    private let mainCursor: PassCursor
    private let immediateCursor: PassCursor

    init(layout: PayloadLayout, replayRules: [ReplayRule], diagnostics: (@Sendable (BusDiagnostic) -> Void)?) {
        busID = Self.makeBusID()
        self.diagnostics = diagnostics
        let main = DeliveryLane(name: "main actor", layout: layout)
        let immediate = DeliveryLane(name: "immediate", layout: layout)
        mainCursor = main.cursor
        immediateCursor = immediate.cursor
        state = LockedValue(
            State(
                registry: ListenerRegistry(busID: busID, eventCount: replayRules.count),
                lanes: [main, immediate],
                replayRules: replayRules,
                latest: ReplayStore(layout: layout, eventCount: replayRules.count),
                layout: layout
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
        makeCallback: (EventSubscription) -> ErasedCallback
    ) -> EventSubscription {
        var work = AfterUnlock()
        let (token, inline) = state.withLock { state -> (EventSubscription, InlineDelivery?) in
            if lifetime?.ownerID != nil { state.end(state.registry.sweepDeadOwnersIfDue(), into: &work) }
            let lane = state.lane(for: selector, into: &work)
            let (token, bucket) = state.registry.subscribe(
                event: event,
                lane: lane,
                lifetime: lifetime,
                token: { EventSubscription(busID: busID, listenerID: $0, slot: $1, issuer: self) },
                makeCallback: makeCallback
            )
            guard let bucket else {
                work.lifetimes.append(contentsOf: lifetime.map { [$0] } ?? [])
                return (token, nil)
            }
            state.lanes[lane].liveCount += 1
            guard let replay = state.replay(for: event, asked: replayLatest) else { return (token, nil) }
            var header = DeliveryHeader(bucket: .passUnretained(bucket), mark: .max)
            header.targetID = token.listenerID
            header.targetSlot = token.slot
            // The replayed payload may be replaced once the lock is released: an inline delivery
            // gets its own copy.
            return (token, state.route(header, payload: replay, toLane: lane, copyingInline: true, work: &work))
        }
        work.run(diagnostics: diagnostics, storage: self)
        if let inline { deliverImmediately(inline) }
        return token
    }

    /// Subscribes to the event `key`, added on first use; see
    /// ``subscribe(event:lane:lifetime:replayLatest:makeCallback:)``.
    func subscribe(
        key: ObjectIdentifier,
        lane: LaneSelector,
        lifetime: SubscriptionLifetime? = nil,
        makeCallback: (EventSubscription) -> ErasedCallback
    ) -> EventSubscription {
        let event = state.withLock { $0.event(forKey: key) }
        return subscribe(event: event, lane: lane, lifetime: lifetime, makeCallback: makeCallback)
    }

    // MARK: Ending subscriptions

    /// Ends a subscription without waiting: from `deinit`, callbacks, any thread.
    ///
    /// A pass on another thread that is calling the callback at this moment may finish it, and one
    /// that has already reached it may still call it once; the pass releases it when it finishes.
    func cancel(_ token: EventSubscription) {
        var work = AfterUnlock()
        state.withLock { state in
            guard let ended = state.registry.end(token) else { return }
            _ = state.end(ended, into: &work)
        }
        work.run(diagnostics: diagnostics, storage: self)
    }

    /// The one handle that owns the subscription `token` names; see ``EventSubscription``.
    func handle(for token: EventSubscription) -> SubscriptionHandle? {
        state.withLock { state in state.registry.handle(of: token) { SubscriptionHandle(owning: token) } }
    }

    /// Ends the subscription `token` names if the handle with identity `handle` owns it: from the
    /// handle's `deinit`.
    func handleReleased(_ handle: ObjectIdentifier, owning token: EventSubscription) {
        var work = AfterUnlock()
        state.withLock { state in
            guard state.registry.isOwner(handle, of: token), let ended = state.registry.end(token) else { return }
            _ = state.end(ended, into: &work)
        }
        work.run(diagnostics: diagnostics, storage: self)
    }

    /// Ends a subscription, and returns once no callback of it can run any more, or once its task
    /// is cancelled.
    ///
    /// Waits only while the pass of its lane may still call it (it is at that listener or before
    /// it in the same fire); otherwise returns after the lock. Never waits for a busy executor.
    /// Cancelled, it returns at once: the subscription has ended, as after ``cancel(_:)``, but the
    /// call a pass is making, or has reached, may still run.
    func off(_ token: EventSubscription) async {
        var work = AfterUnlock()
        let waitFor = state.withLock { state -> (lane: Int, bucket: Int, id: UInt64)? in
            guard let ended = state.registry.end(token) else { return nil }
            return state.end(ended, into: &work) ? (ended.bucket.lane, ended.bucket.number, ended.id) : nil
        }
        work.run(diagnostics: diagnostics, storage: self)
        guard let waitFor else { return }
        let waiter = BusWaiter()
        await withTaskCancellationHandler {
            await withCheckedContinuation { (continuation: CheckedContinuation<Void, Never>) in
                let (waiting, watchers) = state.withLock { state in
                    let lane = waitFor.lane
                    guard !waiter.isCancelled, state.lanes[lane].isPassActive,
                        state.lanes[lane].cursor.mayCall(bucket: waitFor.bucket, id: waitFor.id)
                    else {
                        waiter.state = .done
                        return (false, [CheckedContinuation<Void, Never>]())
                    }
                    waiter.wait(on: continuation)
                    state.lanes[lane].addOffWaiter(waiter)
                    state.lanes[lane].cursor.request()
                    return (true, state.lanes[lane].takeSatisfiedWaiterWatchers())
                }
                if !waiting { continuation.resume() }
                for watcher in watchers { watcher.resume() }
            }
        } onCancel: {
            let continuation = state.withLock { state in
                let continuation = waiter.cancel()
                if continuation != nil { state.lanes[waitFor.lane].removeOffWaiter(waiter) }
                return continuation
            }
            continuation?.resume()
        }
    }

    /// Returns once at least `count` callers of `kind` wait on `lane`: a hook for tests that must
    /// know an `off` or a `flush` is waiting before they let the pass go on, or cancel it.
    func waitForWaiters(_ kind: DeliveryLane.WaiterKind, _ count: Int, lane: Int) async {
        await withCheckedContinuation { (continuation: CheckedContinuation<Void, Never>) in
            let now = state.withLock { state -> Bool in
                guard state.lanes[lane].waiterCount(kind) < count else { return true }
                state.lanes[lane].waiterWatchers.append((kind, count, continuation))
                return false
            }
            if now { continuation.resume() }
        }
    }

    /// Returns once at least `count` `off` callers wait for the pass of `lane`.
    func waitForOffWaiters(_ count: Int, lane: Int) async {
        await waitForWaiters(.off, count, lane: lane)
    }

    /// Ends every subscription bound to `owner`.
    func cancelAll(ownedBy owner: AnyObject) {
        let ownerID = ObjectIdentifier(owner)
        var work = AfterUnlock()
        state.withLock { state in _ = state.end(state.registry.endAll(ownedBy: ownerID), into: &work) }
        work.run(diagnostics: diagnostics, storage: self)
    }

    /// Ends every subscription to the event `key` bound to `owner`.
    func cancelAll(ownedBy owner: AnyObject, key: ObjectIdentifier) {
        let ownerID = ObjectIdentifier(owner)
        var work = AfterUnlock()
        state.withLock { state in
            guard let event = state.eventsByKey[key] else { return }
            _ = state.end(state.registry.endAll(ownedBy: ownerID, event: event), into: &work)
        }
        work.run(diagnostics: diagnostics, storage: self)
    }

    /// Ends every subscription, and keeps accepting new ones: a bus reset, unlike ``shutDown()``.
    func cancelAll() {
        var work = AfterUnlock()
        state.withLock { state in _ = state.end(state.registry.endAll(), into: &work) }
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

    /// The number of live subscriptions to the event `key`.
    func listenerCount(forKey key: ObjectIdentifier) -> Int {
        guard let event = state.withLock({ $0.eventsByKey[key] }) else { return 0 }
        return listenerCount(for: event)
    }

    /// Ends every subscription (sequences finish) and makes later fires and subscriptions inert.
    ///
    /// Fires already queued are dropped: their listeners have ended.
    func shutDown() {
        var work = AfterUnlock()
        state.withLock { state in
            state.end(state.registry.close(), into: &work)
            for lane in state.lanes.indices {
                let (dropped, flushed) = state.lanes[lane].dropPending()
                work.dropped.append(dropped)
                if !flushed.isEmpty { work.continuations += flushed }
            }
            work.dropped.append(state.latest.removeAll())
        }
        work.run(diagnostics: diagnostics, storage: self)
    }

    /// Forgets the payload `event` replays to late listeners.
    ///
    /// A listener subscribing from now on receives nothing until the next fire. Deliveries already
    /// queued, replays included, still happen. The payload is destroyed after unlocking.
    func clearReplay(of event: Int) {
        var work = AfterUnlock()
        state.withLock { state in
            if let removed = state.latest.remove(event) { work.dropped.append(removed) }
        }
        work.run(diagnostics: diagnostics, storage: self)
    }

    /// What the bus holds, counted where the memory is.
    ///
    /// For tests that check what returns to its baseline. Computed on demand, under the lock.
    var footprint: StorageFootprint {
        state.withLock { state in
            var footprint = StorageFootprint()
            state.registry.addFootprint(to: &footprint)
            footprint.lanes = state.lanes.count
            footprint.vacantLanes = state.vacantLanes.count
            footprint.laneBufferCapacity = state.lanes.reduce(0) { $0 + $1.bufferCapacity }
            footprint.retainedReplays = state.latest.retainedCount
            footprint.replaySlots = state.latest.slotCount
            return footprint
        }
    }

    // MARK: Fire → delivery

    /// Delivers the payload at `payload` to every listener of `event` subscribed now: queued for
    /// the main actor and actor lanes, and on this thread for the immediate lane.
    ///
    /// Never waits for callbacks of other lanes. `payload` need only live until this returns.
    func fire(event: Int, payload: UnsafeRawPointer) {
        var work = AfterUnlock()
        let inline = state.withLock { state in state.route(payload, event: event, work: &work) }
        if !work.isEmpty { work.run(diagnostics: diagnostics, storage: self) }
        if let inline { deliverImmediately(inline) }
    }

    /// Delivers the payload at `payload` to the listeners of the event `key` (nothing when no one
    /// ever subscribed to it), then to those of `alsoEvent`, under one lock.
    func fire(key: ObjectIdentifier, alsoEvent: Int, payload: UnsafeRawPointer) {
        var work = AfterUnlock()
        let inline = state.withLock { state -> InlineDelivery? in
            var inline: InlineDelivery?
            if let event = state.eventsByKey[key] { inline = state.route(payload, event: event, work: &work) }
            if let also = state.route(payload, event: alsoEvent, work: &work) { inline = also }
            return inline
        }
        if !work.isEmpty { work.run(diagnostics: diagnostics, storage: self) }
        if let inline { deliverImmediately(inline) }
    }

    /// Returns once every fire queued before the call, on every lane, has been delivered, or once
    /// its task is cancelled (at once if it already was).
    func flush() async {
        let waiter = BusWaiter()
        await withTaskCancellationHandler {
            await withCheckedContinuation { (continuation: CheckedContinuation<Void, Never>) in
                let (waiting, watchers) = state.withLock { state in
                    guard !waiter.isCancelled else { return (false, [CheckedContinuation<Void, Never>]()) }
                    for lane in state.lanes.indices { state.lanes[lane].addFlushWaiter(waiter) }
                    guard waiter.remaining > 0 else {
                        waiter.state = .done
                        return (false, [])
                    }
                    waiter.wait(on: continuation)
                    var watchers: [CheckedContinuation<Void, Never>] = []
                    for lane in state.lanes.indices { watchers += state.lanes[lane].takeSatisfiedWaiterWatchers() }
                    return (true, watchers)
                }
                if !waiting { continuation.resume() }
                for watcher in watchers { watcher.resume() }
            }
        } onCancel: {
            let continuation = state.withLock { state in
                let continuation = waiter.cancel()
                if continuation != nil {
                    for lane in state.lanes.indices { state.lanes[lane].removeFlushWaiter(waiter) }
                }
                return continuation
            }
            continuation?.resume()
        }
    }

    // MARK: Passes

    /// A delivery the caller runs on its own thread right away: the immediate lane was idle.
    struct InlineDelivery {
        let header: DeliveryHeader
        /// The payload: the firing caller's, or `copy`'s.
        let payload: UnsafeRawPointer
        /// A copy of the payload the delivery owns, when the original may change once unlocked.
        let copy: DeliveryBuffer?
    }

    /// Delivers an immediate fire on this thread, then whatever was queued on the lane meanwhile.
    private func deliverImmediately(_ inline: InlineDelivery) {
        withUnsafePointer(to: inline.header) { header in
            deliver(header, payload: inline.payload, lane: Self.immediateLane, cursor: immediateCursor)
        }
        var buffer = finishAndTakeNext(lane: Self.immediateLane, delivered: 1, recycling: nil)
        while let batch = buffer {
            let count = deliver(batch, lane: Self.immediateLane, cursor: immediateCursor)
            buffer = finishAndTakeNext(lane: Self.immediateLane, delivered: count, recycling: batch)
        }
    }

    /// Schedules a main-actor job that drains the main lane.
    func scheduleMainDrain() {
        Task { @MainActor in self.drainJob(lane: Self.mainLane, cursor: self.mainCursor) }
    }

    /// Schedules a job on `actor` that drains its lane.
    func scheduleDrain(lane: Int, on actor: any Actor) {
        Task { await self.drain(lane: lane, isolatedTo: actor) }
    }

    private func drain(lane: Int, isolatedTo actor: isolated any Actor) {
        drainJob(lane: lane, cursor: state.withLock { $0.lanes[lane].cursor })
    }

    /// Delivers queued batches on the lane's executor, yielding it after ``batchesPerJob``.
    private func drainJob(lane: Int, cursor: PassCursor) {
        var buffer = state.withLock { $0.lanes[lane].takeBatch() }
        var batches = 0
        while let batch = buffer {
            let count = deliver(batch, lane: lane, cursor: cursor)
            batches += 1
            guard batches < Self.batchesPerJob else {
                finish(lane: lane, delivered: count, recycling: batch)
                // Still busy: let other work on this executor run, then continue.
                if lane == Self.mainLane {
                    scheduleMainDrain()
                } else if let actor = state.withLock({ $0.lanes[lane].actor }) {
                    // Always there: this job holds its actor.
                    scheduleDrain(lane: lane, on: actor)
                }
                return
            }
            buffer = finishAndTakeNext(lane: lane, delivered: count, recycling: batch)
        }
    }

    /// Delivers every entry of a batch, then empties it (outside the lock: destroying a payload may
    /// run user code).
    ///
    /// - Returns: How many deliveries the batch held.
    private func deliver(_ batch: DeliveryBuffer, lane: Int, cursor: PassCursor) -> Int {
        let count = batch.count
        for index in 0..<count {
            deliver(batch.header(at: index), payload: batch.payload(at: index), lane: lane, cursor: cursor)
        }
        batch.removeAll()
        return count
    }

    /// Ends a batch and takes the next one under one lock.
    ///
    /// - Returns: The next batch, or `nil` when the lane's drain has ended.
    private func finishAndTakeNext(lane: Int, delivered: Int, recycling buffer: DeliveryBuffer?) -> DeliveryBuffer? {
        var work = AfterUnlock()
        let next = state.withLock { state -> DeliveryBuffer? in
            state.finishPass(lane: lane, delivered: delivered, recycling: buffer, into: &work)
            return state.lanes[lane].takeBatch()
        }
        if !work.isEmpty { work.run(diagnostics: diagnostics, storage: self) }
        return next
    }

    /// Ends a batch.
    private func finish(lane: Int, delivered: Int, recycling buffer: DeliveryBuffer?) {
        var work = AfterUnlock()
        state.withLock { state in state.finishPass(lane: lane, delivered: delivered, recycling: buffer, into: &work) }
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
    private func deliver(
        _ header: UnsafePointer<DeliveryHeader>,
        payload: UnsafeRawPointer,
        lane: Int,
        cursor: PassCursor
    ) {
        let bucket = header.pointee.bucket.takeUnretainedValue()
        if header.pointee.isReplay {
            let target = state.withLock { state -> UnsafeMutablePointer<ListenerEntry>? in
                let token = EventSubscription(
                    busID: busID, listenerID: header.pointee.targetID, slot: header.pointee.targetSlot, issuer: nil)
                return state.registry.entry(of: token)?.entry
            }
            guard let target else { return }
            DeliveryPass.call(target, payload: payload, bucket: bucket, cursor: cursor) { actOnRequests(lane: lane) }
        } else {
            DeliveryPass.run(payload: payload, bucket: bucket, mark: header.pointee.mark, cursor: cursor) {
                actOnRequests(lane: lane)
            }
        }
    }

    private static let busIDs = LockedValue(UInt64(0))

    private static func makeBusID() -> UInt64 {
        busIDs.withLock { id in
            id += 1
            return id
        }
    }
}

extension BusStorage.State {
    /// The index of the event `key`, added if new.
    mutating func event(forKey key: ObjectIdentifier) -> Int {
        if let event = eventsByKey[key] { return event }
        let event = replayRules.count
        eventsByKey[key] = event
        replayRules.append(.none)
        latest.addEvent()
        registry.addEvents(upTo: event)
        return event
    }

    /// The lane for `selector`, created for an actor on its first subscription.
    mutating func lane(for selector: LaneSelector, into work: inout AfterUnlock) -> Int {
        switch selector {
        case .mainActor: return BusStorage.mainLane
        case .immediate: return BusStorage.immediateLane
        case .actor(let actor):
            let id = ObjectIdentifier(actor)
            if let lane = actorLanes[id] {
                if lanes[lane].actor != nil { return lane }
                // The lane of an actor that is gone, whose address a new actor now has: end what
                // is left of it before anything can reach the new actor through it.
                abandon(lane: lane, into: &work)
            }
            let name = "actor \(type(of: actor))"
            let lane: Int
            if let vacant = vacantLanes.popLast() {
                lane = vacant
                lanes[lane].actor = actor
                lanes[lane].name = name
            } else {
                lane = lanes.count
                lanes.append(DeliveryLane(name: name, layout: layout, actor: actor))
            }
            lanes[lane].actorID = id
            actorLanes[id] = lane
            return lane
        }
    }

    /// The payload a new subscription to `event` is owed by replay, if any.
    func replay(for event: Int, asked: Bool) -> UnsafeRawPointer? {
        switch replayRules[event] {
        case .sticky: latest.payload(of: event)
        case .latestOnRequest: asked ? latest.payload(of: event) : nil
        case .none: nil
        }
    }

    /// Queues the payload at `payload` for every listener of `event` subscribed now, in each lane.
    ///
    /// - Returns: For the immediate lane when it was idle, the delivery for the caller to run now.
    mutating func route(
        _ payload: UnsafeRawPointer,
        event: Int,
        work: inout AfterUnlock
    ) -> BusStorage.InlineDelivery? {
        guard !registry.isClosed else { return nil }
        if replayRules[event] != .none, let replaced = latest.set(event, to: payload) { work.dropped.append(replaced) }
        let mark = registry.nextID
        var inline: BusStorage.InlineDelivery?
        for index in registry.routes[event].indices {
            let bucket = registry.bucket(registry.routes[event][index])
            guard bucket.takeUnretainedValue().liveCount > 0 else { continue }
            let header = DeliveryHeader(bucket: bucket, mark: mark)
            let lane = bucket.takeUnretainedValue().lane
            if let started = route(header, payload: payload, toLane: lane, copyingInline: false, work: &work) {
                inline = started
            }
        }
        return inline
    }

    /// Queues a delivery on its lane, scheduling the lane's drain if needed.
    ///
    /// - Returns: For the immediate lane when it was idle, the delivery for the caller to run now;
    ///   with its own copy of the payload when `copyingInline`.
    mutating func route(
        _ header: DeliveryHeader,
        payload: UnsafeRawPointer,
        toLane lane: Int,
        copyingInline: Bool,
        work: inout AfterUnlock
    ) -> BusStorage.InlineDelivery? {
        if lane == BusStorage.immediateLane, !lanes[lane].isDraining {
            lanes[lane].startInlineDelivery()
            guard copyingInline else { return .init(header: header, payload: payload, copy: nil) }
            let copy = DeliveryBuffer(layout: layout)
            copy.append(header, payload: payload)
            return .init(header: header, payload: UnsafeRawPointer(copy.payload(at: 0)), copy: copy)
        }
        let (mustSchedule, backlog) = lanes[lane].enqueue(header, payload: payload)
        if let backlog { work.diagnostics.append(backlog.diagnostic) }
        guard mustSchedule else { return nil }
        switch lane {
        case BusStorage.mainLane:
            work.scheduleMain = true
        case BusStorage.immediateLane:
            break
        default:
            if let actor = lanes[lane].actor {
                work.actorDrains.append((lane, actor))
            } else {
                abandon(lane: lane, into: &work)
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
        let mayBeCalled = release(ended, into: &work)
        tidy(ended.bucket)
        return mayBeCalled
    }

    mutating func end(_ sweep: ListenerRegistry.Sweep, into work: inout AfterUnlock) {
        end(sweep.ended, into: &work)
        if !sweep.liveOwners.isEmpty { work.liveOwners += sweep.liveOwners }
    }

    /// Takes an ended subscription's callback for release after unlocking, unless the running pass
    /// of its lane may be calling it: the pass releases it when it finishes (or when an `off`
    /// waiting for it asks it to act).
    ///
    /// - Returns: Whether the pass may be calling it.
    private mutating func release(_ ended: ListenerRegistry.Ended, into work: inout AfterUnlock) -> Bool {
        let lane = ended.bucket.lane
        lanes[lane].liveCount -= 1
        if let lifetime = ended.lifetime { work.lifetimes.append(lifetime) }
        if lanes[lane].isPassActive, lanes[lane].cursor.mayCall(bucket: ended.bucket.number, id: ended.id) {
            lanes[lane].deferredReleases.append((ended.bucket, ended.position))
            return true
        }
        work.release(ended.bucket.takeCallback(at: ended.position))
        return false
    }

    /// Drops a bucket's trailing holes and compacts it if due, unless a pass of its lane runs (the
    /// pass then does it when it finishes); frees its lane if nothing is left in it.
    mutating func tidy(_ bucket: ListenerBucket) {
        let lane = bucket.lane
        guard !lanes[lane].isPassActive else {
            if !bucket.isDueForTidying {
                bucket.isDueForTidying = true
                lanes[lane].bucketsDueForTidying.append(bucket)
            }
            return
        }
        bucket.isDueForTidying = false
        bucket.trimTrailingHoles()
        if bucket.isDueForCompaction { registry.compact(bucket) }
        vacate(lane: lane)
    }

    /// Ends a pass: releases what it deferred, tidies what it kept from tidying, and resumes the
    /// `off` and `flush` callers it was holding.
    mutating func finishPass(lane: Int, delivered: Int, recycling buffer: DeliveryBuffer?, into work: inout AfterUnlock)
    {
        let flushed = lanes[lane].finishBatch(count: delivered, recycling: buffer)
        if !flushed.isEmpty { work.continuations += flushed }
        actOnRequests(lane: lane, into: &work)
        if !lanes[lane].bucketsDueForTidying.isEmpty {
            let due = lanes[lane].bucketsDueForTidying
            lanes[lane].bucketsDueForTidying = []
            for bucket in due { tidy(bucket) }
        }
        vacate(lane: lane)
    }

    /// Releases the callbacks the pass deferred and resumes the `off` callers waiting for it.
    ///
    /// Called by the pass itself, between callbacks or at its end: it is calling nothing now, and
    /// taking the lock orders every later read of an entry's state after the ends it acts on.
    mutating func actOnRequests(lane: Int, into work: inout AfterUnlock) {
        if !lanes[lane].deferredReleases.isEmpty {
            for (bucket, position) in lanes[lane].deferredReleases {
                work.release(bucket.takeCallback(at: position))
            }
            lanes[lane].deferredReleases.removeAll(keepingCapacity: true)
        }
        if !lanes[lane].offWaiters.isEmpty { resumeOffWaiters(lane: lane, into: &work) }
        lanes[lane].cursor.clearRequests()
    }

    /// Takes the `off` callers waiting on the pass of `lane`, to resume after unlocking.
    ///
    /// Out of line: a waiter holds a continuation, whose size the compiler learns only at run time,
    /// and code that handles one sets up room for it on entry, which the pass's path between
    /// callbacks must not pay when no one waits.
    @inline(never)
    private mutating func resumeOffWaiters(lane: Int, into work: inout AfterUnlock) {
        for waiter in lanes[lane].takeOffWaiters() {
            if let continuation = waiter.finish() { work.continuations.append(continuation) }
        }
    }

    /// Frees an actor lane that has nothing left, so that another actor can use it: also when its
    /// actor is gone, which is when most lanes empty.
    mutating func vacate(lane: Int) {
        guard lane > BusStorage.immediateLane, lanes[lane].isVacant, let id = lanes[lane].actorID else { return }
        if actorLanes[id] == lane { actorLanes[id] = nil }
        lanes[lane].actor = nil
        lanes[lane].actorID = nil
        vacantLanes.append(lane)
    }

    /// Ends every subscription of an actor lane whose actor is gone, drops what was queued for it,
    /// and frees the lane.
    mutating func abandon(lane: Int, into work: inout AfterUnlock) {
        lanes[lane].isDraining = false
        end(registry.endAll(inLane: lane), into: &work)
        let (dropped, flushed) = lanes[lane].dropPending()
        work.dropped.append(dropped)
        if !flushed.isEmpty { work.continuations += flushed }
        vacate(lane: lane)
    }
}

/// What a bus's storage holds, counted where its memory is; see ``BusStorage/footprint``.
///
/// Entries in use drop to zero when the last subscription ends; capacities are the memory kept for
/// the next ones.
struct StorageFootprint: Equatable, Sendable {
    /// Entries held for subscriptions (slot rows, bucket entries and holes, side-table entries).
    var entries = 0
    /// Live subscriptions.
    var liveSubscriptions = 0
    /// Rows the slot table and its free list have room for.
    var slotCapacity = 0
    /// Entries the side tables (owners and end hooks, handles) have room for.
    var sideTableCapacity = 0
    /// Buckets: one per event and lane that ever had a subscription.
    var buckets = 0
    /// Entries the buckets' allocated chunks have room for.
    var bucketChunkCapacity = 0
    /// Delivery lanes: the main actor's, the immediate one, and one per actor in use or vacant.
    var lanes = 0
    /// Lanes freed by actors that are gone, kept for the next actor.
    var vacantLanes = 0
    /// Deliveries the lanes' buffers have room for.
    var laneBufferCapacity = 0
    /// Payloads retained for replay.
    var retainedReplays = 0
    /// Payloads the replay store has room for: one per event.
    var replaySlots = 0
}

/// What a locked section leaves to do once the lock is released: it may run user code.
///
/// A fire usually leaves nothing, or only a drain to schedule, so everything else lives in one
/// object allocated on first use: the empty case costs a flag and a `nil` check.
struct AfterUnlock {
    final class Actions {
        /// Callbacks of ended subscriptions: releasing them may run the deinit of what they captured.
        var callbacks: [ErasedCallback] = []
        /// Lifetimes of ended subscriptions, whose end hooks run (a sequence finishes).
        var lifetimes: [SubscriptionLifetime] = []
        /// Owners a sweep looked at, released here in case the sweep held the last reference.
        var liveOwners: [any AnyObject & Sendable] = []
        /// Payloads no longer needed (dropped fires, replaced replays), destroyed here.
        var dropped: [DeliveryBuffer] = []
        /// `flush` and `off` callers to resume.
        var continuations: [CheckedContinuation<Void, Never>] = []
        var diagnostics: [BusDiagnostic] = []
        var actorDrains: [(lane: Int, actor: any Actor)] = []
    }

    var scheduleMain = false
    /// The one callback most locked sections release (ending one subscription), kept inline.
    private var releasedCallback: ErasedCallback?
    private var actions: Actions?

    /// Releases `callback` after unlocking.
    mutating func release(_ callback: ErasedCallback) {
        if releasedCallback == nil {
            releasedCallback = callback
        } else {
            ensureActions().callbacks.append(callback)
        }
    }

    private mutating func ensureActions() -> Actions {
        if let actions { return actions }
        let created = Actions()
        actions = created
        return created
    }

    var lifetimes: [SubscriptionLifetime] {
        get { actions?.lifetimes ?? [] }
        _modify { yield &ensureActions().lifetimes }
    }

    var liveOwners: [any AnyObject & Sendable] {
        get { actions?.liveOwners ?? [] }
        _modify { yield &ensureActions().liveOwners }
    }

    var dropped: [DeliveryBuffer] {
        get { actions?.dropped ?? [] }
        _modify { yield &ensureActions().dropped }
    }

    var continuations: [CheckedContinuation<Void, Never>] {
        get { actions?.continuations ?? [] }
        _modify { yield &ensureActions().continuations }
    }

    var diagnostics: [BusDiagnostic] {
        get { actions?.diagnostics ?? [] }
        _modify { yield &ensureActions().diagnostics }
    }

    var actorDrains: [(lane: Int, actor: any Actor)] {
        get { actions?.actorDrains ?? [] }
        _modify { yield &ensureActions().actorDrains }
    }

    /// Whether there is nothing to do: the common case of a fire, which then skips ``run``.
    var isEmpty: Bool { !scheduleMain && actions == nil && releasedCallback == nil }

    /// Does it all: end hooks, releases, drains, then resumes waiters.
    mutating func run(diagnostics hook: (@Sendable (BusDiagnostic) -> Void)?, storage: BusStorage) {
        if scheduleMain { storage.scheduleMainDrain() }
        guard let actions else {
            releasedCallback = nil
            return
        }
        self.actions = nil
        for lifetime in actions.lifetimes { lifetime.onEnd?() }
        releasedCallback = nil
        actions.callbacks = []
        actions.liveOwners = []
        actions.dropped = []
        for (lane, actor) in actions.actorDrains { storage.scheduleDrain(lane: lane, on: actor) }
        for diagnostic in actions.diagnostics { hook?(diagnostic) }
        for continuation in actions.continuations { continuation.resume() }
    }
}

/// The latest payload of each event, for replay: raw storage in the bus's payload layout.
final class ReplayStore: @unchecked Sendable {
    // @unchecked: only touched under the bus's lock.

    private let layout: PayloadLayout
    private var slots: UnsafeMutableRawPointer
    private var filled: [Bool]

    init(layout: PayloadLayout, eventCount: Int) {
        self.layout = layout
        filled = Array(repeating: false, count: eventCount)
        slots = .allocate(byteCount: max(1, eventCount) * layout.stride, alignment: layout.alignment)
    }

    deinit {
        _ = removeAll()
        slots.deallocate()
    }

    /// The latest payload of `event`, if it has one.
    func payload(of event: Int) -> UnsafeRawPointer? {
        filled[event] ? UnsafeRawPointer(slots + event * layout.stride) : nil
    }

    /// Keeps a copy of the payload at `payload` as the latest of `event`.
    ///
    /// - Returns: The payload it replaced, to destroy after unlocking.
    func set(_ event: Int, to payload: UnsafeRawPointer) -> DeliveryBuffer? {
        let slot = slots + event * layout.stride
        var replaced: DeliveryBuffer?
        if filled[event] {
            let old = DeliveryBuffer(layout: layout)
            old.appendMoving(payload: slot)
            replaced = old
        }
        layout.copy(to: slot, from: payload)
        filled[event] = true
        return replaced
    }

    /// How many payloads it retains.
    var retainedCount: Int { filled.reduce(0) { $0 + ($1 ? 1 : 0) } }

    /// How many payloads it has room for: one per event.
    var slotCount: Int { filled.count }

    /// Forgets the latest payload of `event`.
    ///
    /// - Returns: The payload, to destroy after unlocking; `nil` when it had none.
    func remove(_ event: Int) -> DeliveryBuffer? {
        guard filled[event] else { return nil }
        let removed = DeliveryBuffer(layout: layout)
        removed.appendMoving(payload: slots + event * layout.stride)
        filled[event] = false
        return removed
    }

    /// Makes room for one more event.
    func addEvent() {
        let count = filled.count
        let grown = UnsafeMutableRawPointer.allocate(
            byteCount: (count + 1) * layout.stride, alignment: layout.alignment)
        if layout.isBitwiseTakable {
            grown.copyMemory(from: slots, byteCount: count * layout.stride)
        } else {
            for event in filled.indices where filled[event] {
                layout.move(to: grown + event * layout.stride, from: slots + event * layout.stride)
            }
        }
        slots.deallocate()
        slots = grown
        filled.append(false)
    }

    /// Forgets every payload.
    ///
    /// - Returns: The payloads, to destroy after unlocking.
    func removeAll() -> DeliveryBuffer {
        let removed = DeliveryBuffer(layout: layout)
        for event in filled.indices where filled[event] {
            removed.appendMoving(payload: slots + event * layout.stride)
            filled[event] = false
        }
        return removed
    }
}

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
