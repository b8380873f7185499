/// The state behind one bus and the whole fire → delivery path: the one engine every kind of bus
/// in the package runs on.
///
/// It is not generic. Payloads are copied in and destroyed through the bus's ``PayloadLayout`` and
/// handed to passes by address; callbacks are stored erased (``ErasedCallback``). So the engine is
/// the same compiled code for every catalog, the built-in one and those declared in other
/// modules, with no generic metadata to look up on the fire → delivery path.
///
/// A fire takes the lock once: it queues the payload for each lane that has listeners of its event
/// and, when a lane has no drain under way, schedules one: main-actor or actor jobs of at most about
/// 2 ms of callbacks each (``DeliveryBudget``), a pass resuming in the next job where the last one
/// stopped. The immediate lane is delivered on the firing thread right after the lock, unless
/// another thread is delivering on it, which then delivers this fire next. A pass reads each
/// listener in place; ending a subscription marks its entry, so it never copies a bucket.
///
/// See ``PassCursor`` for how ending a subscription learns whether a running pass may still call it.
///
/// This file holds the storage's operations, each one locked section followed by the work it
/// leaves, and the passes that drain the lanes. The rest of the engine is in files of its own:
/// ``BusStorage/State`` (BusStorage+State.swift) is what the lock guards and how a fire is routed
/// and a subscription ended under it; ``AfterUnlock`` is what a locked section leaves to do once
/// the lock is released; ``DeliveryLane`` and ``BusWaiter`` are a lane's queue and the `off` and
/// `flush` callers waiting on it; ``ReplayStore`` keeps the payloads replayed to late listeners;
/// ``DeliveryPass`` is the loop that calls the listeners; BusStorage+TestHooks.swift and
/// ``WaiterWatchers`` hold what only tests use.
package final class BusStorage: SubscriptionIssuer, @unchecked Sendable {
    // @unchecked: all mutable state is in `state`, behind its lock; the rest is immutable.

    static let mainLane = 0
    static let immediateLane = 1
    let busID: UInt64
    let state: LockedValue<State>
    package let diagnostics: (@Sendable (BusDiagnostic) -> Void)?
    /// The cursors of the two lanes every bus has, read without the lock.
    private let mainCursor: PassCursor
    private let immediateCursor: PassCursor
    /// How to destroy a replaced replay once the lock is released.
    private let layout: PayloadLayout
    /// The name of an event, for diagnostics and timelines.
    package let eventName: @Sendable (Int) -> String

    package init(
        layout: PayloadLayout,
        replayRules: [ReplayRule],
        diagnostics: (@Sendable (BusDiagnostic) -> Void)?,
        eventName: @escaping @Sendable (Int) -> String
    ) {
        busID = Self.makeBusID()
        self.diagnostics = diagnostics
        self.eventName = eventName
        self.layout = layout
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
    ///   - file: The file of the `on` that subscribes (`#fileID`), if known.
    ///   - line: Its line.
    ///   - unspecialized: Leave the default. The function is generic in name only, so that the
    ///     optimizer does not copy it (1.6 KB, of the core's 120) for the one closure literal passed
    ///     to it, in ``subscribe(event:lane:replayLatest:file:line:callback:)``: it copies a function
    ///     per closure literal, but not through a generic call it may not specialize. Nothing is
    ///     dispatched through `Unspecialized`.
    ///   - makeCallback: Makes the callback, given the subscription's own token.
    /// - Returns: The token. On a shut-down bus it is inert and the end hook has already run.
    @_semantics("optimize.sil.specialize.generic.never")
    package func subscribe<Unspecialized>(
        event: Int,
        lane selector: LaneSelector,
        lifetime: SubscriptionLifetime? = nil,
        replayLatest: Bool = false,
        file: StaticString? = nil,
        line: UInt = 0,
        unspecialized: Unspecialized.Type = Never.self,
        makeCallback: (EventSubscription) -> ErasedCallback
    ) -> EventSubscription {
        var work = AfterUnlock()
        let (token, inline) = state.withLock { state -> (EventSubscription, InlineDelivery?) in
            if lifetime?.ownerID != nil { state.end(state.registry.sweepDeadOwnersIfDue(), into: &work) }
            let lane = state.lane(for: selector, into: &work)
            let site = file.map { state.annotations.sites.index(of: $0, line: line) } ?? 0
            let (token, bucket) = state.registry.subscribe(
                event: event,
                lane: lane,
                lifetime: lifetime,
                site: site,
                token: { EventSubscription(busID: busID, listenerID: $0, slot: $1, issuer: self) },
                makeCallback: makeCallback
            )
            guard let bucket else {
                work.lifetimes.append(contentsOf: lifetime.map { [$0] } ?? [])
                return (token, nil)
            }
            state.lanes[lane].liveCount += 1
            guard let replay = state.replay(for: event, asked: replayLatest) else { return (token, nil) }
            var header = DeliveryHeader(bucket: bucket, mark: .max)
            header.targetID = token.listenerID
            header.targetSlot = token.slot
            // The replayed payload may be replaced once the lock is released: an inline delivery
            // gets its own copy.
            var priority = FirePriority.unread
            let inline = state.route(
                header, payload: replay, toLane: lane, copyingInline: true, priority: &priority, work: &work)
            return (token, inline)
        }
        work.run(diagnostics: diagnostics, storage: self)
        if let inline { deliverImmediately(inline) }
        return token
    }

    /// Subscribes a callback that does not need its own subscription; see
    /// ``subscribe(event:lane:lifetime:replayLatest:file:line:unspecialized:makeCallback:)``.
    func subscribe(
        event: Int,
        lane selector: LaneSelector,
        replayLatest: Bool,
        file: StaticString? = nil,
        line: UInt = 0,
        callback: consuming ErasedCallback
    ) -> EventSubscription {
        // Moved into the entry, not copied: a copy retained the callback only to release this one.
        var callback = Optional(callback)
        return subscribe(event: event, lane: selector, replayLatest: replayLatest, file: file, line: line) { _ in
            callback.take().unsafelyUnwrapped
        }
    }

    /// Subscribes to the event `key`, added on first use; see
    /// ``subscribe(event:lane:lifetime:replayLatest:file:line:unspecialized:makeCallback:)``.
    package func subscribe(
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
    package func cancel(_ token: EventSubscription) {
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

    /// Whether the subscription `token` names has not ended.
    ///
    /// For a ``SubscriptionSet`` that drops the ended ones. Ends those whose owner is gone first,
    /// when a sweep of them is due.
    func isLive(_ token: EventSubscription) -> Bool {
        var work = AfterUnlock()
        let live = state.withLock { state in
            state.end(state.registry.sweepDeadOwnersIfDue(), into: &work)
            return state.registry.isLive(token)
        }
        work.run(diagnostics: diagnostics, storage: self)
        return live
    }

    /// Ends a subscription, and returns once no callback of it can run any more, or once its task
    /// is cancelled.
    ///
    /// Waits only while the pass of its lane may still call it (it is at that listener or before
    /// it in the same fire); otherwise returns after the lock. Never waits for a busy executor.
    /// Cancelled, it returns at once: the subscription has ended, as after ``cancel(_:)``, but the
    /// call a pass is making, or has reached, may still run.
    package func off(_ token: EventSubscription) async {
        if let bucket = endWaitingForPass(token) { await waitForPass(bucket: bucket, id: token.listenerID) }
    }

    /// Ends a subscription for `off`, without waiting.
    ///
    /// - Returns: `nil` when no callback of it can run any more; otherwise the number of the
    ///   bucket whose running pass may still call it, for ``waitForPass(bucket:id:)``.
    func endWaitingForPass(_ token: EventSubscription) -> Int? {
        var work = AfterUnlock()
        let bucket = state.withLock { state -> Int? in
            guard let ended = state.registry.end(token) else { return nil }
            return state.end(ended, into: &work) ? ended.bucketRef._withUnsafeGuaranteedRef { $0.number } : nil
        }
        work.run(diagnostics: diagnostics, storage: self)
        return bucket
    }

    /// Returns once the pass of its lane can no longer call the ended subscription with id `id` in
    /// `bucket`, or once the task is cancelled (at once if it already was): the second half of
    /// ``off(_:)``.
    func waitForPass(bucket: Int, id: UInt64) async {
        let waiter = BusWaiter()
        // Checked, not trusted: this is an entry of the library-evolution ABI, which a client
        // built against another version of the package calls with what its `off` was given.
        let lane = state.withLock { state -> Int? in
            guard bucket >= 0, bucket < state.registry.buckets.count else { return nil }
            let lane = state.registry.buckets[bucket].lane
            return lane >= 0 ? lane : nil
        }
        guard let lane else { return }
        await withTaskCancellationHandler {
            await withCheckedContinuation { (continuation: CheckedContinuation<Void, Never>) in
                var work = AfterUnlock()
                let (waiting, watchers) = state.withLock { state in
                    // The lane may have been left vacant and removed since: its pass is over.
                    let mayCall =
                        lane < state.lanes.count && state.lanes[lane].isPassActive
                        && state.lanes[lane].cursor.mayCall(bucket: bucket, id: id)
                    guard !waiter.isCancelled, mayCall else {
                        waiter.state = .done
                        // The pass has moved past the listener since it was ended: its callback,
                        // left for the pass to release, is released before `off` returns.
                        if !mayCall, lane < state.lanes.count {
                            state.releaseDeferred(id: id, bucket: bucket, lane: lane, into: &work)
                        }
                        return (false, [CheckedContinuation<Void, Never>]())
                    }
                    waiter.wait(on: continuation)
                    state.lanes[lane].addOffWaiter(waiter)
                    state.lanes[lane].cursor.request()
                    return (true, state.takeSatisfiedWatchers())
                }
                if !work.isEmpty { work.run(diagnostics: diagnostics, storage: self) }
                if !waiting { continuation.resume() }
                for watcher in watchers { watcher.resume() }
            }
        } onCancel: {
            let continuation = state.withLock { state in
                let continuation = waiter.cancel()
                if continuation != nil, lane < state.lanes.count { state.lanes[lane].removeOffWaiter(waiter) }
                return continuation
            }
            continuation?.resume()
        }
    }

    /// Ends every subscription bound to `owner`.
    package func cancelAll(ownedBy owner: AnyObject) {
        let ownerID = ObjectIdentifier(owner)
        var work = AfterUnlock()
        state.withLock { state in _ = state.end(state.registry.endAll(ownedBy: ownerID), into: &work) }
        work.run(diagnostics: diagnostics, storage: self)
    }

    /// Ends every subscription, and keeps accepting new ones: a bus reset, unlike ``shutDown()``.
    package func cancelAll() {
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
    package func listenerCount(forKey key: ObjectIdentifier) -> Int {
        guard let event = state.withLock({ $0.eventsByKey[key] }) else { return 0 }
        return listenerCount(for: event)
    }

    /// Ends every subscription (sequences finish) and makes later fires and subscriptions inert.
    ///
    /// Fires already queued are dropped, with the rest of a batch a pass holds between two jobs:
    /// their listeners have ended.
    package func shutDown() {
        var work = AfterUnlock()
        state.withLock { state in
            state.end(state.registry.close(), into: &work)
            // Not over `indices`: a lane left vacant may be removed from the end meanwhile.
            var lane = 0
            while lane < state.lanes.count {
                state.dropQueued(lane: lane, into: &work)
                lane += 1
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

    /// Destroys the replayed payload a fire replaced, and frees its memory.
    func destroyRetired(_ replay: UnsafeMutableRawPointer) {
        layout.destroy(replay)
        replay.deallocate()
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
    package func fire(key: ObjectIdentifier, alsoEvent: Int, payload: UnsafeRawPointer) {
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

    /// Whether every fire queued so far, on every lane, has been delivered.
    package var isDelivered: Bool { state.withLock { state in state.lanes.allSatisfy(\.isIdle) } }

    /// Returns once every fire queued before the call, on every lane, has been delivered, or once
    /// its task is cancelled (at once if it already was).
    package func flush() async {
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
                    return (true, state.takeSatisfiedWatchers())
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

    /// Delivers an immediate fire on this thread, then what other threads (or its own callbacks)
    /// fired on the lane meanwhile, for at most one job's budget; a job on the global executor
    /// continues from there.
    ///
    /// So the firing thread runs every immediate listener of its own fire, however long they take,
    /// but is drafted into delivering other fires for about 2 ms at most: a main-thread fire never
    /// delivers an unbounded stream of background threads' events.
    private func deliverImmediately(_ inline: InlineDelivery) {
        var unlimited = DeliveryBudget.unlimited
        // A fire a timeline records carries its stamp: the one check for it here. Nothing of the
        // timeline lives across the plain path, which is the one without timelines.
        let isRecorded = inline.header.fireStamp != 0
        withUnsafePointer(to: inline.header) { header in
            if isRecorded, let timeline = jobTimeline(lane: Self.immediateLane) {
                _ = deliverRecording(
                    header, payload: inline.payload, from: 0, lane: Self.immediateLane, cursor: immediateCursor,
                    budget: &unlimited, timeline: timeline)
            } else {
                _ = deliver(
                    header, payload: inline.payload, from: 0, lane: Self.immediateLane, cursor: immediateCursor,
                    budget: &unlimited, timeline: nil)
            }
        }
        guard let next = finishAndTakeNext(lane: Self.immediateLane, delivered: 1, recycling: nil, job: nil)
        else { return }
        // Others fired meanwhile: the contended case, which takes the lock once more. This thread
        // delivers their fires only while none outranks it; else a job at their priority does.
        var priority = FirePriority.unread
        let thread = priority.read()
        let batch = DeliveryLane.HeldBatch(buffer: next)
        let (limit, job, isOutranked) = state.withLock { state in
            let job = DeliveryLane.Job(generation: state.lanes[Self.immediateLane].job.generation, priority: thread)
            return (state.jobBudget, job, state.lanes[Self.immediateLane].batchPriority > thread)
        }
        if isOutranked {
            yieldJob(lane: Self.immediateLane, holding: batch, job: job)
            return
        }
        // Recorded when this thread's own fire was, with the timeline installed now (looked up
        // again, so that the plain path carries none): at the moment recording starts or stops,
        // the deliveries of the other fires drained here may be left out, or go to the timeline
        // started since, which shows them without their fires.
        drain(
            from: batch, lane: Self.immediateLane, cursor: immediateCursor, limit: limit, job: job,
            timeline: isRecorded ? jobTimeline(lane: Self.immediateLane) : nil)
    }

    /// Schedules a job on the global executor that continues the immediate lane: once a firing
    /// thread has delivered other threads' fires for a job's budget, or met fires of a higher
    /// priority than its own.
    func scheduleImmediateDrain(job: DeliveryLane.Job) {
        Task(priority: FirePriority.task(job.priority)) {
            self.drainJob(lane: Self.immediateLane, cursor: self.immediateCursor, job: job)
        }
    }

    /// Schedules a main-actor job that drains the main lane, at the priority of the caller.
    ///
    /// Main-actor jobs run in the main queue's order, first in first out, whatever their priority
    /// (on Apple platforms an app's main thread runs at user-interactive quality of service, above
    /// every task priority), so the lane reads no fire's priority.
    func scheduleMainDrain() {
        Task { @MainActor in self.drainJob(lane: Self.mainLane, cursor: self.mainCursor, job: nil) }
    }

    /// Schedules `job` on `actor`, which drains its lane, at the job's priority.
    func scheduleDrain(lane: Int, on actor: any Actor, job: DeliveryLane.Job) {
        Task(priority: FirePriority.task(job.priority)) { await self.drain(lane: lane, isolatedTo: actor, job: job) }
    }

    /// A job on an actor lane: `job` may have been superseded long ago, and its lane left vacant and
    /// removed from the end of the table since (a lane in its place starts at a later generation).
    private func drain(lane: Int, isolatedTo actor: isolated any Actor, job: DeliveryLane.Job) {
        guard let cursor = state.withLock({ lane < $0.lanes.count ? $0.lanes[lane].cursor : nil }) else { return }
        drainJob(lane: lane, cursor: cursor, job: job)
    }

    /// Delivers queued batches on the lane's executor (the global one for the immediate lane) for
    /// at most the bus's job budget (about 2 ms of callbacks), then yields the executor: the next
    /// job, scheduled behind whatever the executor holds by then, resumes exactly where this one
    /// stopped.
    ///
    /// Between two jobs the pass stays active and outside any bucket, holding its batch in the
    /// lane: `off` returns at once and the resumed pass skips the ended listener; fires queue
    /// behind the held batch and schedule nothing (the drain is under way); `flush` waits for the
    /// held batch like any other.
    ///
    /// `job` is the lane's job this one is (`nil` on the main lane, where no job supersedes
    /// another): superseded by a job of a higher priority, it leaves the drain to that one, at its
    /// start or at the end of its batch.
    private func drainJob(lane: Int, cursor: PassCursor, job: DeliveryLane.Job?) {
        var work = AfterUnlock()
        let (start, limit, timeline) = state.withLock {
            state -> (DeliveryLane.HeldBatch?, DeliveryBudget.Limit, JobTimeline?) in
            guard lane < state.lanes.count else { return (nil, state.jobBudget, nil) }
            let start = state.lanes[lane].start(job)
            // A drain that ends here may leave its lane with nothing: free it.
            if start == nil { state.vacate(lane: lane, into: &work) }
            return (start, state.jobBudget(lane: lane), state.jobTimeline(lane: lane))
        }
        if !work.isEmpty { work.run(diagnostics: diagnostics, storage: self) }
        guard let start else { return }
        drain(from: start, lane: lane, cursor: cursor, limit: limit, job: job, timeline: timeline)
    }

    /// Delivers from `start` on, batch after batch, until the lane is empty or `limit` is spent;
    /// then yields, holding what is left for the lane's next job.
    ///
    /// Stops at the end of a batch when `job` is superseded or outranked (see
    /// ``BusStorage/State/takeNextBatch(lane:for:into:)``).
    private func drain(
        from start: DeliveryLane.HeldBatch,
        lane: Int,
        cursor: PassCursor,
        limit: DeliveryBudget.Limit,
        job: DeliveryLane.Job?,
        timeline: JobTimeline?
    ) {
        var current = start
        var budget = DeliveryBudget(limit)
        while true {
            if deliver(&current, lane: lane, cursor: cursor, budget: &budget, timeline: timeline) {
                reportSlowCalls(of: &budget)
                yieldJob(lane: lane, holding: current, job: job)
                return
            }
            // Outside the lock: destroying a payload may run user code.
            current.buffer.removeAll()
            // Before the batch counts as delivered: a `flush` returns after the report.
            reportSlowCalls(of: &budget)
            guard !budget.isSpent else {
                yieldJob(lane: lane, delivered: current.index, recycling: current.buffer, job: job)
                return
            }
            guard
                let next = finishAndTakeNext(
                    lane: lane, delivered: current.index, recycling: current.buffer, job: job)
            else { return }
            current = DeliveryLane.HeldBatch(buffer: next)
        }
    }

    /// Delivers a batch from where `current` stands, until its end or until `budget` is spent.
    ///
    /// - Returns: Whether the budget ran out before the batch's end; `current` then says where to
    ///   resume. Otherwise `current.index` is the batch's count.
    private func deliver(
        _ current: inout DeliveryLane.HeldBatch,
        lane: Int,
        cursor: PassCursor,
        budget: inout DeliveryBudget,
        timeline: JobTimeline?
    ) -> Bool {
        let batch = current.buffer
        let count = batch.count
        while current.index < count {
            let entry = batch.entry(at: current.index)
            if let stop = deliver(
                entry.assumingMemoryBound(to: DeliveryHeader.self), payload: entry + batch.payloadOffset,
                from: current.resumeID, lane: lane, cursor: cursor, budget: &budget, timeline: timeline)
            {
                current.resumeID = stop
                return true
            }
            current.index += 1
            current.resumeID = 0
            if budget.isSpent, current.index < count { return true }
        }
        return false
    }

    /// Ends a job whose budget ran out mid-batch (or that leaves its batch to a job of a higher
    /// priority): the lane holds the batch for the next job, which is scheduled now, unless `job`
    /// was superseded: the job that superseded it resumes the batch.
    private func yieldJob(lane: Int, holding current: DeliveryLane.HeldBatch, job: DeliveryLane.Job?) {
        var work = AfterUnlock()
        state.withLock { state in
            state.lanes[lane].hold(current)
            // The pass is outside any bucket: `off` callers waiting for it may go.
            state.actOnRequests(lane: lane, into: &work)
            if state.lanes[lane].isCurrent(job) { state.scheduleNextJob(lane: lane, into: &work) }
        }
        work.run(diagnostics: diagnostics, storage: self)
    }

    /// Ends a job whose budget ran out at the end of a batch: finishes the batch, and schedules the
    /// next job if fires are queued (unless `job` was superseded: the job that superseded it
    /// delivers them).
    private func yieldJob(lane: Int, delivered: Int, recycling buffer: DeliveryBuffer, job: DeliveryLane.Job?) {
        var work = AfterUnlock()
        state.withLock { state in
            state.finishPass(lane: lane, delivered: delivered, recycling: buffer, into: &work)
            guard state.lanes[lane].isCurrent(job) else { return }
            if state.lanes[lane].continuesAfterYield() {
                state.scheduleNextJob(lane: lane, into: &work)
            } else {
                state.vacate(lane: lane, into: &work)
            }
        }
        work.run(diagnostics: diagnostics, storage: self)
    }

    /// Ends a batch and takes the next one under one lock.
    ///
    /// - Returns: The next batch, or `nil` when the lane's drain has ended or goes on in another
    ///   job (see ``BusStorage/State/takeNextBatch(lane:for:into:)``).
    private func finishAndTakeNext(
        lane: Int,
        delivered: Int,
        recycling buffer: DeliveryBuffer?,
        job: DeliveryLane.Job?
    ) -> DeliveryBuffer? {
        var work = AfterUnlock()
        let next = state.withLock { state -> DeliveryBuffer? in
            state.finishPass(lane: lane, delivered: delivered, recycling: buffer, into: &work)
            // `nil`: the main lane's job, or the firing thread on the immediate lane before it
            // read its priority, which no other job supersedes.
            guard let job else { return state.lanes[lane].takeBatch() }
            let next = state.takeNextBatch(lane: lane, for: job, into: &work)
            // A drain that ends here may leave its actor lane with nothing: free it.
            if next == nil { state.vacate(lane: lane, into: &work) }
            return next
        }
        if !work.isEmpty { work.run(diagnostics: diagnostics, storage: self) }
        return next
    }

    /// Acts on what enders asked while the pass runs; called by the pass between callbacks.
    private func actOnRequests(lane: Int) {
        var work = AfterUnlock()
        state.withLock { state in state.actOnRequests(lane: lane, into: &work) }
        work.run(diagnostics: diagnostics, storage: self)
    }

    /// Delivers one fire from the listener with id `resumeID` on, or one replay.
    ///
    /// While a timeline records (`timeline`), ``deliverRecording(_:payload:from:lane:cursor:budget:timeline:)``
    /// does instead: one check here, and this path stays as it was without timelines (it inlines
    /// into the drains, and takes no reference for them).
    ///
    /// - Returns: `nil` when done; otherwise the budget ran out and this is the id to resume from.
    @inline(__always)
    private func deliver(
        _ header: UnsafePointer<DeliveryHeader>,
        payload: UnsafeRawPointer,
        from resumeID: UInt64,
        lane: Int,
        cursor: PassCursor,
        budget: inout DeliveryBudget,
        timeline: JobTimeline?
    ) -> UInt64? {
        if let timeline {
            return deliverRecording(
                header, payload: payload, from: resumeID, lane: lane, cursor: cursor, budget: &budget,
                timeline: timeline)
        }
        let bucket = header.pointee.bucket.takeUnretainedValue()
        if header.pointee.isReplay {
            guard let target = replayTarget(of: header) else { return nil }
            DeliveryPass.call(target, payload: payload, bucket: bucket, cursor: cursor, timeline: nil) {
                actOnRequests(lane: lane)
            }
            // A replay is not named if slow: the next jobs time each callback alone instead.
            _ = budget.spend()
            return nil
        }
        return DeliveryPass.run(
            payload: payload, bucket: bucket, mark: header.pointee.mark, from: resumeID, cursor: cursor,
            budget: &budget
        ) {
            actOnRequests(lane: lane)
        }
    }

    /// ``deliver(_:payload:from:lane:cursor:budget:timeline:)`` while a timeline records: each call
    /// timed and told to it.
    @inline(never)
    private func deliverRecording(
        _ header: UnsafePointer<DeliveryHeader>,
        payload: UnsafeRawPointer,
        from resumeID: UInt64,
        lane: Int,
        cursor: PassCursor,
        budget: inout DeliveryBudget,
        timeline: JobTimeline
    ) -> UInt64? {
        let bucket = header.pointee.bucket.takeUnretainedValue()
        if header.pointee.isReplay {
            guard let target = replayTarget(of: header) else { return nil }
            DeliveryPass.call(target, payload: payload, bucket: bucket, cursor: cursor, timeline: timeline) {
                actOnRequests(lane: lane)
            }
            _ = budget.spend()
            return nil
        }
        return DeliveryPass.runRecording(
            payload: payload, bucket: bucket, mark: header.pointee.mark, from: resumeID, cursor: cursor,
            budget: &budget, timeline: timeline, fire: header.pointee.fireStamp
        ) {
            actOnRequests(lane: lane)
        }
    }

    /// The live entry a replay is owed to; `nil` once its subscription ended.
    private func replayTarget(of header: UnsafePointer<DeliveryHeader>) -> UnsafeMutablePointer<ListenerEntry>? {
        state.withLock { state in
            let token = EventSubscription(
                busID: busID, listenerID: header.pointee.targetID, slot: header.pointee.targetSlot, issuer: nil)
            return state.registry.entry(of: token)?.entry
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
