extension BusStorage {
    /// Everything a bus guards with its lock: the listener registry, the delivery lanes and the
    /// replay store.
    ///
    /// Its methods route fires to the lanes and finish ending subscriptions. They run under the
    /// lock and call no user code: what must happen once the lock is released (releasing
    /// callbacks, running end hooks, scheduling drains, resuming waiters) they leave in an
    /// ``AfterUnlock``.
    struct State {
        var registry: ListenerRegistry
        var lanes: [DeliveryLane]
        /// The lane of each actor that has subscriptions.
        var actorLanes: [ObjectIdentifier: Int] = [:]
        /// Vacant actor lanes, kept for the next actors: at most ``maximumVacantLanes`` at the end
        /// of the lane table (more only while lanes after them are in use).
        var vacantLanes: [Int] = []
        /// The generation the next new lane's jobs start at: above those of the lanes removed from
        /// the end of the table, whose superseded jobs may still be queued on their actors.
        var laneGenerationFloor: UInt32 = 0
        /// Per event, its replay rule.
        var replayRules: [ReplayRule]
        /// Per event, the latest payload it replays.
        var latest: ReplayStore
        /// For buses whose events are types (app events): each type's event index, added on first
        /// use, so that a fire looks its event up with one hash lookup under the lock it takes anyway.
        var eventsByKey: [ObjectIdentifier: Int] = [:]
        let layout: PayloadLayout
        /// The timeline recording the bus, if one is installed: every fire checks it, once.
        var timeline: (any TimelineSink)?
        /// The rest of what timelines and slow-listener reports keep, in an object of its own: its
        /// fields are rarely used, and out of this struct they cost its copies nothing.
        let annotations = Annotations()
        #if DEBUG || SDKEVENTBUS_TEST_HOOKS
            // Only in the builds tests run in (debug, and `Scripts/test-release.sh`'s release build
            // with this condition): a release build carries no field for tests.

            /// What one main-actor or actor job may spend before it yields its executor: tests lower
            /// it (``BusStorage/limitJobs(toCallbacks:)``).
            var jobLimit = DeliveryBudget.Limit.job
            /// Tests waiting until callers wait on a lane: none unless a test installs one.
            var waiterWatchers = WaiterWatchers()
        #endif

        /// How many vacant actor lanes are kept for the next actors.
        static let maximumVacantLanes = 4
    }
}

extension BusStorage.State {
    /// What one main-actor or actor job may spend before it yields its executor: about 2 ms
    /// (``DeliveryBudget/Limit/job``), unless a test lowered it.
    var jobBudget: DeliveryBudget.Limit {
        #if DEBUG || SDKEVENTBUS_TEST_HOOKS
            jobLimit
        #else
            .job
        #endif
    }

    /// The budget of a job of `lane`: the main lane's also names slow listeners, and times more
    /// callbacks alone once after a job found a slow one it could not name.
    func jobBudget(lane: Int) -> DeliveryBudget.Limit {
        var limit = jobBudget
        guard lane == BusStorage.mainLane else { return limit }
        limit.slowNanoseconds = annotations.slowListenerThreshold
        guard annotations.isolatingMainJobs > 0 else {
            limit.isolated = DeliveryBudget.Limit.isolatedPerJob
            return limit
        }
        annotations.isolatingMainJobs -= 1
        limit.isolated = DeliveryBudget.Limit.isolatedAfterHitch
        return limit
    }

    /// The stamp of a fire a timeline records: now, or the nanosecond after the last one.
    func nextFireStamp() -> UInt64 {
        annotations.lastFireStamp = max(MonotonicClock.nanoseconds, annotations.lastFireStamp &+ 1)
        return annotations.lastFireStamp
    }

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
    @inline(__always)
    mutating func lane(for selector: LaneSelector, into work: inout AfterUnlock) -> Int {
        switch selector {
        case .mainActor: return BusStorage.mainLane
        case .immediate: return BusStorage.immediateLane
        case .actor(let actor): return lane(for: actor, into: &work)
        }
    }

    /// The lane of `actor`, created on its first subscription.
    @inline(never)
    private mutating func lane(for actor: any Actor, into work: inout AfterUnlock) -> Int {
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
            lanes.append(DeliveryLane(name: name, layout: layout, actor: actor, firstGeneration: laneGenerationFloor))
        }
        lanes[lane].actorID = id
        actorLanes[id] = lane
        return lane
    }

    /// The payload a new subscription to `event` is owed by replay, if any.
    @inline(__always)
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
        if replayRules[event] != .none, let replaced = latest.set(event, to: payload) { work.retire(replaced) }
        let mark = registry.nextID
        var inline: BusStorage.InlineDelivery?
        var priority = FirePriority.unread
        // The one check of a fire for a timeline: with none, nothing more is done for it.
        let stamp = timeline == nil ? 0 : recordFire(event: event, work: &work)
        // Only buckets with live subscriptions are routed, and a route carries its lane: a fire
        // reads no bucket.
        var index = 0
        while index < registry.routes[event].count {
            let target = registry.routes[event][index]
            let routes = registry.routes[event].count
            var header = DeliveryHeader(bucket: target.bucket, mark: mark)
            header.targetSlot = stamp
            // The main lane and an idle immediate lane read no priority: kept inline.
            if target.lane == BusStorage.mainLane {
                routeToMainLane(header, payload: payload, work: &work)
            } else if target.lane == BusStorage.immediateLane, lanes[target.lane].startInlineDeliveryIfIdle() {
                inline = .init(header: header, payload: payload, copy: nil)
            } else if let started = route(
                header, payload: payload, toLane: target.lane, copyingInline: false, priority: &priority, work: &work)
            {
                inline = started
            }
            // Routing to the lane of an actor that is gone abandons the lane, which ends its
            // subscriptions and so removes this route: the next one has moved to `index`.
            if registry.routes[event].count == routes { index += 1 }
        }
        return inline
    }

    /// Stamps a fire for the timeline, and leaves its record to hand over once unlocked.
    ///
    /// - Returns: The fire's stamp, which its deliveries carry.
    @inline(never)
    private mutating func recordFire(event: Int, work: inout AfterUnlock) -> Int {
        let stamp = nextFireStamp()
        work.recordFire(stamp: stamp, event: event, to: timeline.unsafelyUnwrapped)
        return Int(truncatingIfNeeded: stamp)
    }

    /// Queues a delivery on its lane, scheduling the lane's drain if needed.
    ///
    /// The fire's priority is read at most once, and only for a lane where it can change when the
    /// delivery runs: an actor's, or the immediate lane when another thread delivers on it. The
    /// main lane reads none: its jobs run in the main queue's order, first in first out, whatever
    /// their priority.
    ///
    /// - Parameters:
    ///   - header: The delivery.
    ///   - payload: The fire's payload.
    ///   - lane: The lane to queue it on.
    ///   - copyingInline: Whether an inline delivery needs its own copy of the payload.
    ///   - priority: The fire's priority, ``FirePriority/unread`` until a lane needs it.
    ///   - work: What to do once the lock is released.
    /// - Returns: For the immediate lane when it was idle, the delivery for the caller to run now;
    ///   with its own copy of the payload when `copyingInline`.
    mutating func route(
        _ header: DeliveryHeader,
        payload: UnsafeRawPointer,
        toLane lane: Int,
        copyingInline: Bool,
        priority: inout FirePriority,
        work: inout AfterUnlock
    ) -> BusStorage.InlineDelivery? {
        if lane == BusStorage.mainLane {
            routeToMainLane(header, payload: payload, work: &work)
            return nil
        }
        if lane == BusStorage.immediateLane, lanes[lane].startInlineDeliveryIfIdle() {
            guard copyingInline else { return .init(header: header, payload: payload, copy: nil) }
            let copy = DeliveryBuffer(layout: layout)
            copy.append(header, payload: payload)
            return .init(header: header, payload: UnsafeRawPointer(copy.payload(at: 0)), copy: copy)
        }
        let isActorLane = lane != BusStorage.immediateLane
        let (schedule, backlog) = lanes[lane].enqueue(
            header, payload: payload, priority: priority.read(), preemptsRunningJob: isActorLane)
        if let backlog { work.diagnostics.append(backlog.diagnostic) }
        guard let schedule else { return nil }
        if !isActorLane {
            // A job that had not started yet, superseded by one of this fire's priority.
            work.immediateJob = schedule
        } else if let actor = lanes[lane].actor {
            work.actorDrains.append((lane, actor, schedule))
        } else {
            abandon(lane: lane, into: &work)
        }
        return nil
    }

    /// Queues a delivery on the main lane, scheduling its drain if needed.
    @inline(__always)
    mutating func routeToMainLane(_ header: DeliveryHeader, payload: UnsafeRawPointer, work: inout AfterUnlock) {
        let (schedule, backlog) = lanes[BusStorage.mainLane].enqueue(header, payload: payload)
        if let backlog { work.diagnostics.append(backlog.diagnostic) }
        if schedule != nil { work.scheduleMain = true }
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
        for subscription in ended { subscription.bucketRef._withUnsafeGuaranteedRef { tidy($0, into: &work) } }
        return mayBeCalled
    }

    /// Finishes ending one subscription; see ``end(_:into:)-([ListenerRegistry.Ended],_)``.
    mutating func end(_ ended: ListenerRegistry.Ended, into work: inout AfterUnlock) -> Bool {
        let mayBeCalled = release(ended, into: &work)
        ended.bucketRef._withUnsafeGuaranteedRef { tidy($0, into: &work) }
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
        let (lane, number) = ended.bucketRef._withUnsafeGuaranteedRef { ($0.lane, $0.number) }
        lanes[lane].liveCount -= 1
        if let lifetime = ended.lifetime { work.lifetimes.append(lifetime) }
        if lanes[lane].isPassActive, lanes[lane].cursor.mayCall(bucket: number, id: ended.id) {
            lanes[lane].deferredReleases.append((ended.bucket, ended.position))
            return true
        }
        work.release(ended.bucketRef._withUnsafeGuaranteedRef { $0.takeCallback(at: ended.position) })
        return false
    }

    /// Drops a bucket's trailing holes and compacts it if due, unless a pass of its lane runs (the
    /// pass then does it when it finishes); frees its lane if nothing is left in it.
    ///
    /// A retired bucket, whose lane an earlier tidy of the same locked section left vacant, needs
    /// nothing more (its lane may be gone).
    mutating func tidy(_ bucket: ListenerBucket, into work: inout AfterUnlock) {
        guard !bucket.isRetired else { return }
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
        vacate(lane: lane, into: &work)
    }

    /// Ends a pass: releases what it deferred, tidies what it kept from tidying, and resumes the
    /// `off` and `flush` callers it was holding.
    mutating func finishPass(lane: Int, delivered: Int, recycling buffer: DeliveryBuffer?, into work: inout AfterUnlock)
    {
        if let due = lanes[lane].finishPass(count: delivered, recycling: buffer, into: &work) {
            for bucket in due { tidy(bucket, into: &work) }
        }
        vacate(lane: lane, into: &work)
    }

    /// Releases the callbacks the pass deferred and resumes the `off` callers waiting for it.
    ///
    /// Called by the pass itself, between callbacks or at its end: it is calling nothing now, and
    /// taking the lock orders every later read of an entry's state after the ends it acts on.
    mutating func actOnRequests(lane: Int, into work: inout AfterUnlock) {
        // In place: reading the lane's fields through the array copies the lane in a debug build.
        lanes[lane].actOnRequests(into: &work)
    }

    /// Takes the callback of the ended subscription `id` in bucket `number`, if its release was
    /// left to the running pass of `lane`, for release after unlocking: once the pass is past it.
    mutating func releaseDeferred(id: UInt64, bucket number: Int, lane: Int, into work: inout AfterUnlock) {
        guard
            let index = lanes[lane].deferredReleases.firstIndex(where: { bucket, position in
                bucket.number == number && bucket.entry(at: position).pointee.id == id
            })
        else { return }
        let (bucket, position) = lanes[lane].deferredReleases.remove(at: index)
        work.release(bucket.takeCallback(at: position))
    }

    /// Frees an actor lane that has nothing left, so that another actor can use it: also when its
    /// actor is gone, which is when most lanes empty.
    @inline(__always)
    mutating func vacate(lane: Int, into work: inout AfterUnlock) {
        // The main and immediate lanes are never vacated: checked inline, as most ends are theirs.
        guard lane > BusStorage.immediateLane else { return }
        vacateActorLane(lane, into: &work)
    }

    /// Frees an actor lane's memory (its buffers' segments and its buckets) and lists it vacant;
    /// then, beyond ``maximumVacantLanes``, removes the vacant lanes at the end of the table, so
    /// that actors that came and went leave nothing behind.
    ///
    /// Lanes are only removed from the end: a lane's number is in its buckets, routes and jobs.
    /// `lane` may already be gone, removed by an earlier vacate of the same locked section.
    @inline(never)
    private mutating func vacateActorLane(_ lane: Int, into work: inout AfterUnlock) {
        guard lane < lanes.count, lanes[lane].isVacant, let id = lanes[lane].actorID else { return }
        if actorLanes[id] == lane { actorLanes[id] = nil }
        lanes[lane].vacate()
        for bucket in registry.releaseBuckets(ofLane: lane) { work.retiredBuckets.append(bucket) }
        vacantLanes.append(lane)
        // Only a vacant actor lane has no actor identity.
        var removed = 0
        while vacantLanes.count - removed > Self.maximumVacantLanes, lanes.count - 1 > BusStorage.immediateLane,
            lanes[lanes.count - 1].actorID == nil
        {
            laneGenerationFloor = max(laneGenerationFloor, lanes.removeLast().job.generation &+ 1)
            removed += 1
        }
        guard removed > 0 else { return }
        vacantLanes.removeAll { $0 >= lanes.count }
        if lanes.capacity > 64, lanes.count * 4 < lanes.capacity { lanes = Array(shrinking: lanes) }
        registry.removeLanes(from: lanes.count)
    }

    /// Ends every subscription of an actor lane whose actor is gone, drops what was queued for it,
    /// and frees the lane.
    ///
    /// Drops first: ending the last subscription may free the lane, and remove it.
    mutating func abandon(lane: Int, into work: inout AfterUnlock) {
        lanes[lane].isDraining = false
        dropQueued(lane: lane, into: &work)
        end(registry.endAll(inLane: lane), into: &work)
        vacate(lane: lane, into: &work)
    }

    /// Drops what is queued on a lane, and the rest of the batch its pass holds between two jobs
    /// (the pass then ends: the next job finds nothing to resume).
    mutating func dropQueued(lane: Int, into work: inout AfterUnlock) {
        let (dropped, flushed) = lanes[lane].dropPending()
        work.dropped.append(dropped)
        if !flushed.isEmpty { work.continuations += flushed }
        if let held = lanes[lane].dropHeld() {
            work.dropped.append(held)
            finishPass(lane: lane, delivered: held.count, recycling: nil, into: &work)
        }
    }

    /// The next batch for `job` once it has finished one.
    ///
    /// - Returns: `nil` when the drain ends; when a job of a higher priority superseded `job` (that
    ///   one goes on); and when queued fires outrank `job`, which then yields to a job at their
    ///   priority, scheduled now.
    mutating func takeNextBatch(lane: Int, for job: DeliveryLane.Job, into work: inout AfterUnlock) -> DeliveryBuffer? {
        guard lanes[lane].isCurrent(job) else { return nil }
        if lanes[lane].mustYield(job) {
            scheduleNextJob(lane: lane, into: &work)
            return nil
        }
        return lanes[lane].takeBatch()
    }

    /// Schedules the next job of a lane whose job yields, at the highest priority among the fires
    /// it carries.
    ///
    /// The yielding job is the drain's current one, so no fire schedules one meanwhile unless its
    /// priority is higher. The immediate lane continues in a job on the global executor.
    mutating func scheduleNextJob(lane: Int, into work: inout AfterUnlock) {
        let job = lanes[lane].continueInNewJob()
        if lane == BusStorage.mainLane {
            work.scheduleMain = true
        } else if lane == BusStorage.immediateLane {
            work.immediateJob = job
        } else if let actor = lanes[lane].actor {
            // Always there: the yielding job runs on it.
            work.actorDrains.append((lane, actor, job))
        }
    }
}
