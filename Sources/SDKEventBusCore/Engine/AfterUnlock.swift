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
        /// Buckets of lanes left vacant, which the registry let go: kept until here, as an `Ended`
        /// of the locked section may still point at one.
        var buckets: [ListenerBucket] = []
        /// Payloads no longer needed (dropped fires, cleared replays), destroyed here.
        var dropped: [DeliveryBuffer] = []
        /// Replaced replays beyond the first, each in memory of its own, destroyed and freed here.
        var retired: [UnsafeMutableRawPointer] = []
        /// `flush` and `off` callers to resume.
        var continuations: [CheckedContinuation<Void, Never>] = []
        var diagnostics: [BusDiagnostic] = []
        var actorDrains: [(lane: Int, actor: any Actor, job: DeliveryLane.Job)] = []
        /// The job to start on the global executor that continues the immediate lane, if any.
        var immediateJob: DeliveryLane.Job?
        /// The timeline a fire is recorded on, told once unlocked, and the fire.
        var timeline: (any TimelineSink)?
        var fire: (stamp: UInt64, event: Int, thread: UInt64, isMainThread: Bool) = (0, 0, 0, false)
    }

    var scheduleMain = false
    /// The one callback most locked sections release (ending one subscription), kept inline.
    private var releasedCallback: ErasedCallback?
    /// The replay a fire of a replayed event replaced, kept inline: such a fire leaves only that.
    private var retiredReplay: UnsafeMutableRawPointer?
    private var actions: Actions?

    /// Releases `callback` after unlocking.
    mutating func release(_ callback: consuming ErasedCallback) {
        if releasedCallback == nil {
            releasedCallback = callback
        } else {
            ensureActions().callbacks.append(callback)
        }
    }

    /// Destroys the payload at `replay`, which ``ReplayStore/set(_:to:)`` replaced, and frees its
    /// memory after unlocking.
    mutating func retire(_ replay: UnsafeMutableRawPointer) {
        if retiredReplay == nil {
            retiredReplay = replay
        } else {
            ensureActions().retired.append(replay)
        }
    }

    /// Tells `sink` of the fire `stamp` after unlocking, with the time its locked section ended.
    mutating func recordFire(stamp: UInt64, event: Int, to sink: any TimelineSink) {
        let actions = ensureActions()
        actions.timeline = sink
        actions.fire = (stamp, event, CurrentThread.id, CurrentThread.isMain)
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

    var retiredBuckets: [ListenerBucket] {
        get { actions?.buckets ?? [] }
        _modify { yield &ensureActions().buckets }
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

    var actorDrains: [(lane: Int, actor: any Actor, job: DeliveryLane.Job)] {
        get { actions?.actorDrains ?? [] }
        _modify { yield &ensureActions().actorDrains }
    }

    var immediateJob: DeliveryLane.Job? {
        get { actions?.immediateJob }
        set { ensureActions().immediateJob = newValue }
    }

    /// Whether there is nothing to do: the common case of a fire, which then skips ``run``.
    var isEmpty: Bool {
        // Matched, not compared with `== nil`: in a debug build that comparison is a generic call
        // per field, on every fire.
        guard !scheduleMain, case .none = actions, case .none = releasedCallback, case .none = retiredReplay
        else { return false }
        return true
    }

    /// Does it all: end hooks, releases, drains, then resumes waiters.
    @inline(__always)
    mutating func run(diagnostics hook: (@Sendable (BusDiagnostic) -> Void)?, storage: BusStorage) {
        if scheduleMain { storage.scheduleMainDrain() }
        if let replay = retiredReplay {
            retiredReplay = nil
            storage.destroyRetired(replay)
        }
        guard let actions else {
            releasedCallback = nil
            return
        }
        self.actions = nil
        run(actions, diagnostics: hook, storage: storage)
    }

    /// The rest of ``run(diagnostics:storage:)``, out of line: it handles continuations, whose
    /// size the compiler learns only at run time, and code that does sets up room for them on
    /// entry, which ending one subscription (a callback to release, nothing else) must not pay.
    @inline(never)
    private mutating func run(
        _ actions: Actions, diagnostics hook: (@Sendable (BusDiagnostic) -> Void)?, storage: BusStorage
    ) {
        if let sink = actions.timeline {
            let fire = actions.fire
            sink.fired(
                stamp: fire.stamp, end: MonotonicClock.nanoseconds, event: fire.event, thread: fire.thread,
                isMainThread: fire.isMainThread)
        }
        for lifetime in actions.lifetimes { lifetime.onEnd?() }
        releasedCallback = nil
        actions.callbacks = []
        actions.liveOwners = []
        actions.dropped = []
        actions.buckets = []
        for replay in actions.retired { storage.destroyRetired(replay) }
        for (lane, actor, job) in actions.actorDrains { storage.scheduleDrain(lane: lane, on: actor, job: job) }
        if let job = actions.immediateJob { storage.scheduleImmediateDrain(job: job) }
        for diagnostic in actions.diagnostics { storage.report(diagnostic) }
        for continuation in actions.continuations { continuation.resume() }
    }
}
