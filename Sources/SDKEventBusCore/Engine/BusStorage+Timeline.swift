/// What the engine does for timelines and for slow listeners: installing a timeline, the notes it
/// takes besides fires and deliveries, and the report of a main-actor callback that ran too long.
///
/// Nothing here is on the fire → delivery path while no timeline records: the path checks once
/// per fire (``BusStorage/State/route(_:event:work:)``) and once per pass over a bucket
/// (``DeliveryPass``), and a job reports slow callbacks only when its budget found one.
extension BusStorage {
    /// The timeline a delivery job tells, with its lane's name: read once per job, under the lock
    /// the job takes anyway.
    struct JobTimeline {
        let sink: any TimelineSink
        let laneName: String
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
    package var timeline: (any TimelineSink)? { state.withLock { $0.timeline } }

    /// Runs `body` with the state a timeline keeps on the bus (its recorder, which outlives the
    /// sink it installs), under the bus's lock: `body` must be short and call no user code.
    package func withTimelineState<T>(_ body: (inout (any AnyObject & Sendable)?) -> T) -> T {
        state.withLock { body(&$0.timelineState) }
    }

    /// The timeline to tell for a job of `lane`, under the lock: `nil` when none records.
    func jobTimeline(lane: Int) -> JobTimeline? {
        state.withLock { $0.jobTimeline(lane: lane) }
    }

    /// Where the subscription with site index `index` was made: `#fileID`'s text and the line.
    package func site(_ index: UInt32) -> (file: String, line: Int)? {
        state.withLock { $0.sites.site(index) }.map { ("\($0.file)", Int($0.line)) }
    }

    /// How long a main-actor callback may run before it is reported as a slow listener.
    ///
    /// In nanoseconds; `.max` reports none. From the next main-actor job on.
    package var slowListenerThreshold: UInt64 {
        get { state.withLock { $0.slowListenerThreshold } }
        set { state.withLock { $0.slowListenerThreshold = newValue } }
    }

    /// Records a step on the timeline, if one records: the configuration lifecycle's, say.
    ///
    /// - Parameters:
    ///   - name: The step, short (`fetch`, `ready`).
    ///   - detail: A line for logs, made only when a timeline records.
    ///   - phase: Whether it starts or ends a step that takes time, or is an instant.
    package func recordStep(_ name: String, detail: () -> String, phase: TimelineNote.Phase) {
        guard let sink = timeline else { return }
        sink.noted(.step(name: name, detail: detail(), phase: phase, time: MonotonicClock.nanoseconds))
    }

    /// Reports diagnostics: to the bus's hook, and to its timeline if one records.
    package func report(_ diagnostics: [BusDiagnostic]) {
        for diagnostic in diagnostics { self.diagnostics?(diagnostic) }
        guard let sink = timeline else { return }
        let now = MonotonicClock.nanoseconds
        for diagnostic in diagnostics { sink.noted(.diagnostic(diagnostic, time: now)) }
    }

    /// Reports one diagnostic; see ``report(_:)-([BusDiagnostic])``.
    package func report(_ diagnostic: BusDiagnostic) {
        report([diagnostic])
    }

    /// Reports what a main-actor job's budget found about slow callbacks, which it then forgets.
    ///
    /// A slow callback timed alone is reported; one found only within a span of several makes the
    /// lane's next jobs time their callbacks alone. One check when it found neither.
    @inline(__always)
    func reportSlowCalls(of budget: inout DeliveryBudget) {
        guard budget.hasFindings else { return }
        reportSlowCalls(budget.takeFindings())
    }

    @inline(never)
    private func reportSlowCalls(_ budget: DeliveryBudget) {
        let site = state.withLock { state -> SubscriptionSites.Site? in
            if budget.hasUnnamedSlowCall, budget.slowCall == nil {
                state.isolatingMainJobs = DeliveryBudget.Limit.jobsIsolatedAfterHitch
            }
            return budget.slowCall.flatMap { state.sites.site($0.site) }
        }
        guard let slow = budget.slowCall else { return }
        report(
            .slowListener(
                event: eventName(slow.event), file: site.map { "\($0.file)" } ?? "",
                line: site.map { Int($0.line) } ?? 0, duration: Double(slow.nanoseconds) / 1e9))
    }
}

extension BusStorage.State {
    /// The timeline to tell for a job of `lane`: `nil` when none records.
    func jobTimeline(lane: Int) -> BusStorage.JobTimeline? {
        guard let timeline, lane < lanes.count else { return nil }
        return BusStorage.JobTimeline(sink: timeline, laneName: lanes[lane].name)
    }
}
