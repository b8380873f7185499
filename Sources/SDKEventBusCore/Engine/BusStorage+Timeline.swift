/// What the engine does for timelines and for slow listeners: installing a timeline, the notes it
/// takes besides fires and deliveries, and the report of a main-actor callback that ran too long.
///
/// Nothing here is on the fire → delivery path while no timeline records: the path checks once
/// per fire (``BusStorage/State/route(_:event:work:)``) and once per delivery of a fire or replay
/// (`BusStorage.deliver`, which hands a recorded one to `deliverRecording`), and a job reports
/// slow callbacks only when its budget found one.
extension BusStorage {
    /// The timeline a delivery job tells, with its lane's name: read once per job, under the lock
    /// the job takes anyway.
    final class JobTimeline: Sendable {
        let sink: any TimelineSink
        let laneName: String

        init(sink: any TimelineSink, laneName: String) {
            self.sink = sink
            self.laneName = laneName
        }
    }

    /// Starts telling `sink` what the bus does, or stops with `nil`.
    ///
    /// From the next fire and the next delivery job on: a job under way keeps the sink it started
    /// with.
    package func installTimeline(_ sink: (any TimelineSink)?) {
        let replaced = state.withLock { state in
            defer { state.timeline = sink }
            return state.timeline
        }
        // Released outside the lock: a sink's deinit is not the bus's business.
        _ = replaced
    }

    /// The timeline installed, if any.
    var timeline: (any TimelineSink)? { state.withLock { $0.timeline } }

    /// The state a timeline keeps on the bus (its recorder, which outlives the sink it installs):
    /// the one kept, or else `make()`'s, kept from now on; with no `make`, the one kept, if any.
    ///
    /// - Parameter make: Makes the state; called under the bus's lock, so it must be short.
    /// - Returns: The state kept.
    package func timelineState(orMake make: (() -> any AnyObject & Sendable)?) -> (any AnyObject & Sendable)? {
        state.withLock { state in
            if state.annotations.timelineState == nil { state.annotations.timelineState = make?() }
            return state.annotations.timelineState
        }
    }

    /// The timeline to tell for a job of `lane`, under the lock: `nil` when none records.
    func jobTimeline(lane: Int) -> JobTimeline? {
        state.withLock { $0.jobTimeline(lane: lane) }
    }

    /// Where the subscription with site index `index` was made: `#fileID`'s text (a literal, which
    /// lives as long as the process) and the line.
    package func site(_ index: UInt32) -> (file: UnsafePointer<CChar>, line: UInt)? {
        state.withLock { $0.annotations.sites.site(index) }
    }

    /// How long a main-actor callback may run before it is reported as a slow listener.
    ///
    /// In nanoseconds; `.max` reports none. Set with ``setSlowListenerThreshold(_:)``.
    package var slowListenerThreshold: UInt64 { state.withLock { $0.annotations.slowListenerThreshold } }

    /// Sets ``slowListenerThreshold``, from the next main-actor job on.
    package func setSlowListenerThreshold(_ nanoseconds: UInt64) {
        state.withLock { $0.annotations.slowListenerThreshold = nanoseconds }
    }

    /// Records a step on the timeline, if one records: the configuration lifecycle's, say.
    ///
    /// - Parameters:
    ///   - name: The step, short (`fetch`, `ready`).
    ///   - detail: A line for logs, made only when a timeline records.
    ///   - phase: Whether it starts or ends a step that takes time, or is an instant.
    package func recordStep(_ name: String, detail: () -> String, phase: TimelineStepPhase) {
        guard let sink = timeline else { return }
        sink.noted(step: name, detail: detail(), phase: phase, time: MonotonicClock.nanoseconds)
    }

    /// Reports to ``report(_:)``, holding the bus weakly: for an event sequence's drops.
    package var reporter: @Sendable (BusDiagnostic) -> Void { { [weak self] in self?.report($0) } }

    /// Reports a diagnostic: to the bus's hook, and to its timeline if one records.
    package func report(_ diagnostic: BusDiagnostic) {
        diagnostics?(diagnostic)
        timeline?.noted(diagnostic, time: MonotonicClock.nanoseconds)
    }

    /// Reports what a main-actor job's budget found about slow callbacks, which it then forgets.
    ///
    /// A slow callback timed alone is reported; one found only within a span of several makes the
    /// lane's next jobs time their callbacks alone. One check when it found neither.
    @inline(never)
    func reportSlowCalls(of findings: inout DeliveryBudget) {
        guard findings.hasFindings else { return }
        let budget = findings.takeFindings()
        if budget.hasUnnamedSlowCall, budget.slowCall == nil {
            state.withLock { $0.annotations.isolatingMainJobs = DeliveryBudget.Limit.jobsIsolatedAfterHitch }
        }
        guard let slow = budget.slowCall else { return }
        let site = self.site(slow.site)
        report(
            .slowListener(
                event: eventName(slow.event), file: site.map { String(cString: $0.file) } ?? "",
                line: Int(site?.line ?? 0), duration: Double(slow.nanoseconds) / 1e9))
    }
}

extension BusStorage.State {
    /// What timelines and slow-listener reports keep on a bus; guarded by the bus's lock.
    final class Annotations: @unchecked Sendable {
        // @unchecked: reached only through the bus's state, under its lock. For the same reason
        // its fields are `@exclusivity(unchecked)`: the lock orders every access, and a class's
        // fields are otherwise checked at run time on each one (`on` interns its site here).

        /// Where each subscription was made.
        @exclusivity(unchecked) var sites = SubscriptionSites()
        /// What a timeline keeps on the bus between recordings (see
        /// ``BusStorage/timelineState(orMake:)``).
        @exclusivity(unchecked) var timelineState: (any AnyObject & Sendable)?
        /// The stamp of the last fire a timeline recorded (see ``TimelineSink``).
        @exclusivity(unchecked) var lastFireStamp: UInt64 = 0
        /// A main-actor callback that runs longer is reported
        /// (``BusDiagnostic/slowListener(event:file:line:duration:)``); `.max` reports none.
        @exclusivity(unchecked) var slowListenerThreshold: UInt64 = DeliveryBudget.Limit.defaultSlowNanoseconds
        /// How many of the main lane's next jobs time their first
        /// ``DeliveryBudget/Limit/isolatedAfterHitch`` callbacks alone, to name a slow listener that
        /// a job found only within a span of several when it runs again.
        @exclusivity(unchecked) var isolatingMainJobs = 0
    }

    /// The timeline to tell for a job of `lane`: `nil` when none records.
    ///
    /// Once per job: out of line, so that the jobs that take it share one copy.
    @inline(never)
    func jobTimeline(lane: Int) -> BusStorage.JobTimeline? {
        guard let timeline, lane < lanes.count else { return nil }
        return BusStorage.JobTimeline(sink: timeline, laneName: lanes[lane].name)
    }
}
