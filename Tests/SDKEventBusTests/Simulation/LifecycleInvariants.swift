import Foundation
import SDKEventBusConfig

/// The promises the simulation checks, each a name a failure reports and a shrink preserves.
enum Invariant: String, CaseIterable, Sendable {
    /// Readiness is decided once; every caller gets that outcome, the one the ready event announced.
    case readinessDecidedOnce
    /// The ready event is fired before any `ready()` returns.
    case readyEventBeforeReturn
    /// A waiting `ready()` returns in the step readiness is decided, whatever its clock (§8, §9).
    case readyReturnsOnDecision
    /// A `ready(timeout:)` throws `timedOut` when, and only when, its deadline passes undecided.
    case readyTimesOut
    /// The degraded policy's deadline makes an undecided SDK ready when it passes.
    case degradedDeadlinePasses
    /// `refreshNow()` starts or joins a fetch in the step it is called, unless stopped (§1).
    case refreshStartsOrJoins
    /// `refreshNow()` starts a fetch at once also while the cache is being loaded (§1, §8): it
    /// does not wait for a cache that may never answer.
    case refreshDoesNotWaitForTheCache
    /// `refreshNow()` returns once its fetch ends, with its result, or at once when it must throw.
    case refreshReturnsWithItsFetch
    /// A caller whose task is cancelled returns at once, with `CancellationError` (§1, §8).
    case cancelledCallsReturn
    /// One fetch at a time.
    case oneFetchAtATime
    /// No fetch but a demand sooner than 100 ms after the previous one ended (§2).
    case scheduleFloor
    /// No fetch but a demand before a pending retry's backoff ends (§2, §4).
    case noFetchWhileBackingOff
    /// No fetch but a demand while paused once decided, except the first and a retry readiness
    /// waited for (§5).
    case noFetchWhilePaused
    /// Every fetch but a demand has a reason: the first, a retry, a refresh, a request (§2).
    case noFetchWithoutReason
    /// A fetch the schedule makes due runs when it falls due, unless a pause holds it (§2, §4, §5).
    case dueFetchRuns
    /// Nothing is fetched once stopped, shut down, dropped or failed (§6).
    case nothingFetchedAfterStop
    /// A wait after a failure is at least 100 ms and at most a day, honouring Retry-After (§4).
    case retryDelayBounded
    /// A configuration's age counts from when it was fetched, whoever set it (§3).
    case ageCountsFromFetch
    /// Every change of the configuration is announced once, in order; nothing else is.
    case updatesAnnouncedOncePerChange
    /// The store holds and reports what the model says it took.
    case storeAgreesWithModel
    /// Every decision is one diagnostic step, reported as documented (§10).
    case diagnosticSteps
    /// A demand that starts a fetch reports `.refreshRequested(.demand)` (§1).
    case demandReported
    /// Dropping a client made over the SDK's store leaves that store as it was (§7).
    case droppedClientLeavesSDKStore
    /// Stopping ends the lifecycle at once: `.stopped`, callers released, `shutdown()` returns (§6, §8).
    case stopEndsTheLifecycle
    /// When everything ends no waiter, sleeper, refresh or task of the package is left (§12).
    case nothingLeftBehind
    /// No work escapes the deterministic executor, and the jobs of a step run out.
    case deterministic
}

/// A broken promise, with what the simulation saw.
struct Violation: Error, CustomStringConvertible {
    let invariant: Invariant
    let detail: String
    var description: String { "\(invariant): \(detail)" }
}

/// What the simulation reads of the configuration half after a step, through its public API and
/// test SPI only.
struct StepProbe {
    var clientAlive: Bool
    /// The store's readiness, whether it is decided, and its configuration, where the SDK keeps the
    /// store (`nil` otherwise).
    var storeIsReady: Bool?
    var storeIsDecided: Bool?
    var storeVersion: Int??
    /// Whether a fetch or a cache load waits for an answer.
    var callPending: Bool
}

/// Walks each step's observations against ``LifecycleModel``, in order, and reports the first
/// broken promise.
struct LifecycleInvariants {
    let model: LifecycleModel
    private var stepState = StepState()

    /// What one step did, for the checks at its end.
    private struct StepState {
        var operation: SimulationOperation?
        var inFlightAtStart: Int?
        var decidedAtStart = false
        var pausedAtStart = false
        var stoppedAtStart = false
        var fetchStartedReports = 0
        var fetchCalls = 0
        var demandReports = 0
        var requestReports = 0
        var skippedReports = 0
        var pauseReports = 0
        var pauseReportsAllowed = 0...0
        var shutdownCalled = false
        var scheduledReports = 0
        var cacheLoadAnswered = false
        var cacheRejected = false
        /// The lifecycle's fetch answered this step: its number, its answer, its version.
        var answered: (fetch: Int, answer: FetchAnswer, version: Int?)?
        /// What the answered fetch's refreshes must return, once the lifecycle reported it.
        var answeredResult: Result<ConfigChange, SimulatedFetchError>?
        var resultReports = 0
        var expectedReadinessFailed = 0
        var readinessFailedReports = 0
        var predictedUpdates = 0
        var updateEvents = 0
        /// The SDK's `setConfig` in this step: its version, what it must return, its source.
        var sdkConfig: (version: Int, change: ConfigChange, source: ConfigSource)?
        var expectedBool: Bool?
        var shutdownReturned = false
        var requestRequired = false
        var requestAllowed = false
        var skippedRequired = false
        var skippedAllowed = false
        var created = false
        var initialVersion: Int?
    }

    /// Invariants counted rather than failed on, so that a census sees each bug on its own.
    private let tolerance: Tolerance

    /// How often each tolerated invariant was broken.
    var toleratedHits: [Invariant: Int] { tolerance.hits }

    /// The invariants tolerated, and how often each was broken: a reference, so that a check may
    /// count while it reads the model.
    private final class Tolerance {
        let tolerated: Set<Invariant>
        var hits: [Invariant: Int] = [:]

        init(_ tolerated: Set<Invariant>) { self.tolerated = tolerated }
    }

    init(settings: SimulationSettings, tolerating tolerated: Set<Invariant> = []) {
        model = LifecycleModel(settings: settings)
        tolerance = Tolerance(tolerated)
    }

    /// Throws the violation of `invariant`, unless it is tolerated.
    func fail(_ invariant: Invariant, _ detail: @autoclosure () -> String) throws {
        _ = try require(false, invariant, detail())
    }

    /// Throws the violation of `invariant` unless `condition` holds, or the invariant is tolerated.
    ///
    /// - Returns: Whether `condition` held.
    @discardableResult
    func require(_ condition: Bool, _ invariant: Invariant, _ detail: @autoclosure () -> String) throws -> Bool {
        guard !condition else { return true }
        guard !tolerance.tolerated.contains(invariant) else {
            tolerance.hits[invariant, default: 0] += 1
            return false
        }
        throw Violation(invariant: invariant, detail: detail())
    }

    // MARK: Observations

    /// Checks one observation against the model, and moves the model on.
    mutating func observe(_ observation: Observation) throws {
        switch observation {
        case .operation(let operation): try begin(operation)
        case .created(let initialVersion): beginCreation(initialVersion: initialVersion)
        case .clockMoved(let instant): model.now = instant
        case .diagnostic(let step): try diagnose(step)
        case .fetchCalled(let number): try fetchCalled(number)
        case .fetchAnswered(let number, let answer, let version): fetchAnswered(number, answer, version: version)
        case .cacheLoadCalled: break
        case .cacheLoadAnswered(let version): try cacheLoadAnswered(version: version)
        case .cacheWritten: break
        case .announced(let payload): try announced(payload)
        case .readyCalled(let id, let timeout, _): readyCalled(id, timeout: timeout)
        case .readyReturned(let id, let result): try readyReturned(id, result)
        case .refreshCalled(let id): model.refreshCallers[id] = .init(calledInStep: model.step)
        case .refreshReturned(let id, let result): try refreshReturned(id, result)
        case .cancelled(let id, let isRefresh): cancelled(id, isRefresh: isRefresh)
        case .sdkSetConfig(let version, let source, let age): try sdkSetConfig(version, source: source, age: age)
        case .setConfigReturned(let change, let version):
            try require(
                stepState.sdkConfig?.version == version && stepState.sdkConfig?.change == change,
                storeInvariant,
                "setConfig of version \(version) returned \(change); the model expected \(stepState.sdkConfig.map { "\($0.change)" } ?? "no call")"
            )
        case .setDegradedReturned(let result), .failReadinessReturned(let result):
            try require(
                stepState.expectedBool == result, model.dropRequested ? storeInvariant : .readinessDecidedOnce,
                "it returned \(result): readiness was \(model.decision.map { "decided (\($0))" } ?? "undecided") before"
            )
        case .shutdownReturned: stepState.shutdownReturned = true
        case .configRead(let version):
            try require(
                version == model.version, storeInvariant,
                "the configuration read is version \(version.map(String.init) ?? "nil"), the model's \(model.version.map(String.init) ?? "nil")"
            )
        }
    }

    private mutating func beginCreation(initialVersion: Int?) {
        stepState = StepState(pausedAtStart: model.isPaused)
        stepState.pauseReportsAllowed = model.lowPower ? 0...1 : 0...0
        stepState.created = true
        stepState.initialVersion = initialVersion
    }

    private mutating func begin(_ operation: SimulationOperation) throws {
        model.step += 1
        stepState = StepState(
            operation: operation, inFlightAtStart: model.inFlight, decidedAtStart: model.isDecided,
            pausedAtStart: model.isPaused, stoppedAtStart: model.isStopped)
        switch operation {
        case .lowPowerMode(let isEnabled):
            guard model.hasClient else { return }
            notePause(\.lowPower, to: isEnabled)
        case .pauseRefreshing, .resumeRefreshing:
            guard model.hasClient else { return }
            notePause(\.sdkPaused, to: operation == .pauseRefreshing)
        case .stopFetching:
            guard model.hasClient else { return }
            stop(.stopFetching)
        case .failReadiness(let viaClient):
            guard viaClient ? model.hasClient : model.settings.hasSDKStore else { return }
            let decides = model.decision == nil
            stepState.expectedBool = decides
            guard decides else { return }
            let error = String(describing: SimulatedSDKError(number: model.step))
            model.decide(.failed(error))
            if viaClient {
                stepState.expectedReadinessFailed += 1
                stop(.failed(error))
            } else {
                // The store tells the lifecycle that fills it, which stops as for the client's call
                // (§6), without a step of its own: the SDK's call decided it, not the lifecycle.
                model.storeFailedBySDK = model.hasLifecycle
                stop(.failed(error))
            }
        case .setDegraded:
            guard model.settings.hasSDKStore else { return }
            stepState.expectedBool = model.decision == nil
            if model.decision == nil {
                model.decide(.ready(.degraded))
                model.version = nil
                model.startRefreshingAfterFirstConfig()
            }
        case .shutdown:
            if model.hasClient {
                stepState.shutdownCalled = true
                stop(.shutDown)
                model.decision = .shutDown
            } else if model.settings.hasSDKStore {
                model.decision = .shutDown
            }
        case .drop:
            model.dropRequested = model.clientAlive
        case .readConfig(let times):
            guard times > 0, model.hasClient else { return }
            noteRequest(foreground: false)
        case .foreground:
            guard model.hasClient else { return }
            noteRequest(foreground: true)
        default:
            break
        }
    }

    /// A pause turned on or off: one `.refreshPaused`/`.refreshResumed` when refreshes pause or
    /// resume, none when nothing changed (§10).
    private mutating func notePause(_ source: ReferenceWritableKeyPath<LifecycleModel, Bool>, to paused: Bool) {
        let wasPaused = model.isPaused
        let changed = model[keyPath: source] != paused
        model[keyPath: source] = paused
        stepState.pauseReportsAllowed = changed ? 0...1 : 0...0
        if wasPaused != model.isPaused, model.isRunning { stepState.pauseReportsAllowed = 1...1 }
    }

    /// A read or a foreground: whether it must, may or must not request a refresh (§2, §3).
    private mutating func noteRequest(foreground: Bool) {
        guard model.isRunning, model.timeToLive != nil else { return }
        // Only where nothing else serves it: no fetch in flight, no first fetch to come.
        let nothingElseServes = model.inFlight == nil && model.startupDone && !model.firstFetchDue
        switch model.staleness {
        case .stale where nothingElseServes:
            stepState.requestAllowed = !model.requestReported || model.requestMaybeWithdrawn
            stepState.requestRequired = !model.requestReported
            model.request = .definite
        case .stale, .maybe:
            stepState.requestAllowed = !model.requestReported || model.requestMaybeWithdrawn
            stepState.skippedAllowed = foreground
            model.request = max(model.request, .maybe)
        case .fresh:
            stepState.skippedAllowed = foreground
            stepState.skippedRequired = foreground && nothingElseServes && model.request == .none
        }
    }

    private mutating func stop(_ reason: LifecycleModel.StopReason) {
        guard model.hasLifecycle else { return }
        model.stop(reason)
    }

    private mutating func fetchCalled(_ number: Int) throws {
        stepState.fetchCalls += 1
        try require(
            stepState.fetchStartedReports >= stepState.fetchCalls, .diagnosticSteps,
            "fetch \(number) started without a .fetchStarted step before it")
        try require(
            !model.isStopped, .nothingFetchedAfterStop,
            "fetch \(number) started after the lifecycle stopped (\(model.stopReasons))")
        try require(
            model.inFlight == nil, .oneFetchAtATime,
            "fetch \(number) started while fetch \(model.inFlight ?? 0) was in flight")
        let isDemand: Bool = {
            guard case .refreshNow(let callers)? = stepState.operation, callers > 0 else { return false }
            return stepState.inFlightAtStart == nil && stepState.fetchCalls == 1 && !stepState.stoppedAtStart
        }()
        // A demand that should have started a fetch earlier and did not (already a broken promise):
        // the fetch that comes late is its own, not the schedule's.
        let isLateDemand = model.lateDemand
        if isDemand {
            try require(
                stepState.demandReports == 1, .demandReported,
                "refreshNow() started fetch \(number) with \(stepState.demandReports) .refreshRequested(.demand) step(s) before it"
            )
        } else if !isLateDemand {
            try checkScheduledFetch(number)
            model.scheduledFetches += 1
        }
        model.fetchStarted(number)
    }

    /// A fetch that no demand asked for: it must be allowed by the schedule now (§2, §4, §5).
    private mutating func checkScheduledFetch(_ number: Int) throws {
        let now = model.now
        if let end = model.lastFetchEnd {
            try require(
                now >= end + LifecycleModel.floor - LifecycleModel.epsilon, .scheduleFloor,
                "fetch \(number) started at \(now), \(now - end) s after the previous one ended, without a demand, during \(stepState.operation.map { "\($0)" } ?? "the start")"
            )
        }
        if let backoff = model.backoffUntil {
            try require(
                now >= backoff - LifecycleModel.epsilon, .noFetchWhileBackingOff,
                "fetch \(number) started at \(now), backing off until \(backoff), without a demand, during \(stepState.operation.map { "\($0)" } ?? "the start")"
            )
        }
        let isRetryForReadiness =
            model.retryForReadiness && model.retryDue.map { now >= $0 - LifecycleModel.epsilon } == true
        let held =
            stepState.pausedAtStart && model.isPaused && stepState.decidedAtStart && !model.firstFetchDue
            && !isRetryForReadiness
        try require(
            !held, .noFetchWhilePaused,
            "fetch \(number) started at \(now) while paused (low power \(model.lowPower), by the SDK \(model.sdkPaused)), without a demand, during \(stepState.operation.map { "\($0)" } ?? "the start")"
        )
        try require(
            model.scheduledFetchReason != nil, .noFetchWithoutReason,
            "fetch \(number) started at \(now) with nothing due and no request or demand")
    }

    private mutating func fetchAnswered(_ number: Int, _ answer: FetchAnswer, version: Int?) {
        guard number == model.inFlight, model.isRunning else { return }
        stepState.answered = (number, answer, version)
        let error = { (kind: SimulatedFetchError.Kind, retryAfter: TimeInterval?) in
            SimulatedFetchError(kind: kind, retryAfter: retryAfter, fetch: number)
        }
        switch answer {
        case .newConfig, .sameConfig:
            let change = model.change(applying: version!)
            stepState.answeredResult = .success(change)
            if change == .updated { stepState.predictedUpdates += 1 }
            model.apply(change, version: version!, source: .live, fetchedAt: model.now...model.now)
            if change == .unchanged { model.fetchedAt = model.now...model.now }
            model.fetchSucceeded()
        case .failure(let retryAfter):
            stepState.answeredResult = .failure(error(.retryable, retryAfter))
        case .notRetryable:
            stepState.answeredResult = .failure(error(.notRetryable, nil))
        case .endsReadiness:
            stepState.answeredResult = .failure(error(.endsReadiness, nil))
            if model.decision == nil {
                let description = String(describing: error(.endsReadiness, nil))
                model.decide(.failed(description))
                stepState.expectedReadinessFailed += 1
                model.inFlight = nil
                stop(.failed(description))
            }
        }
    }

    private mutating func cacheLoadAnswered(version: Int?) throws {
        stepState.cacheLoadAnswered = true
        model.startupDone = true
        model.cacheVersion = version
        model.startRefreshingAfterFirstConfig()
    }

    private mutating func sdkSetConfig(_ version: Int, source: ConfigSource, age: TimeInterval?) throws {
        let change = model.change(applying: version)
        stepState.sdkConfig = (version, change, source)
        if change == .updated { stepState.predictedUpdates += 1 }
        // A date is known to a fraction of a second: the harness and the store read real time apart.
        let slack = 0.25
        let fetchedAt: ClosedRange<TimeInterval>? =
            switch (source, age) {
            case (.live, nil): model.now...model.now
            case (.initial, nil), (.cache, nil): nil
            case (_, let age?): (model.now - age - slack)...(model.now - age + slack)
            }
        model.apply(
            change, version: version, source: Readiness.Source(rawValue: source.rawValue)!, fetchedAt: fetchedAt)
        if change == .unchanged, let previous = model.fetchedAt, let fetchedAt {
            model.fetchedAt =
                min(previous.lowerBound, fetchedAt.lowerBound)...max(previous.upperBound, fetchedAt.upperBound)
        }
        if change == .first { model.startRefreshingAfterFirstConfig() }
    }

    private mutating func readyCalled(_ id: Int, timeout: TimeInterval?) {
        var caller = LifecycleModel.ReadyCaller()
        if let timeout {
            if timeout > 0 { caller.deadline = model.now + timeout } else { caller.waitsNotAtAll = true }
        }
        model.readyCallers[id] = caller
    }

    private mutating func cancelled(_ id: Int, isRefresh: Bool) {
        if isRefresh {
            model.refreshCallers[id]?.isCancelled = true
        } else {
            model.readyCallers[id]?.isCancelled = true
        }
    }

    // MARK: Diagnostics

    private mutating func diagnose(_ step: LifecycleDiagnostic) throws {
        switch step {
        case .fetchStarted:
            stepState.fetchStartedReports += 1
        case .configApplied(let change):
            try requireAnswer(success: true, step)
            try require(
                stepState.answeredResult == .success(change), .storeAgreesWithModel,
                "\(step): the model expected \(String(describing: stepState.answeredResult))")
        case .fetchFailed(_, _, let retryIn):
            try requireAnswer(success: false, step)
            try require(
                retryIn >= LifecycleModel.floor - LifecycleModel.epsilon && retryIn <= LifecycleModel.longestDelay,
                .retryDelayBounded, "\(step): the wait must be from 0.1 s to a day (policy \(model.settings.retry))")
            if case .failure(let retryAfter?) = stepState.answered?.answer {
                try require(
                    retryIn >= min(retryAfter, LifecycleModel.longestDelay) - LifecycleModel.epsilon,
                    .retryDelayBounded, "\(step): shorter than the server's Retry-After of \(retryAfter) s")
            }
            model.fetchFailed(retryIn: retryIn)
        case .readinessFailed:
            stepState.readinessFailedReports += 1
            try require(
                stepState.readinessFailedReports <= stepState.expectedReadinessFailed, .diagnosticSteps,
                "\(step) reported, but nothing failed readiness in this step")
            if case .endsReadiness? = stepState.answered?.answer { stepState.resultReports += 1 }
        case .degradedStart:
            try require(
                model.decision == nil && model.settings.hasLifecycle, .readinessDecidedOnce,
                "\(step) reported, but readiness was \(model.decision.map { "decided (\($0))" } ?? "not to be decided")"
            )
            guard case .degraded(let timeout) = model.settings.policy else {
                return try fail(.readinessDecidedOnce, "\(step) under the policy \(model.settings.policy)")
            }
            let failedNow = stepState.answered.map { $0.answer != .newConfig && $0.answer != .sameConfig } ?? false
            try require(
                failedNow || (timeout.map { model.now >= $0 - LifecycleModel.epsilon } ?? false), .readinessDecidedOnce,
                "\(step) reported at \(model.now) with no failed fetch and no deadline passed")
            model.decide(.ready(.degraded))
            model.version = nil
            model.degradedDeadline = nil
            model.startRefreshingAfterFirstConfig()
        case .initialConfigApplied(let change):
            try require(
                stepState.created && model.settings.initialConfig && model.settings.usesStoredConfigs,
                .diagnosticSteps, "\(step) reported outside the start of a lifecycle with an initial configuration")
            let version = stepState.initialVersion ?? -1
            let expected = model.change(applying: version)
            try require(expected == change, .storeAgreesWithModel, "\(step): the model expected \(expected)")
            // After a degraded start (its deadline may pass before the initial configuration is
            // applied), the initial configuration is announced as an update.
            if change == .updated { stepState.predictedUpdates += 1 }
            model.apply(change, version: version, source: .initial, fetchedAt: nil)
            if change == .first { model.startRefreshingAfterFirstConfig() }
        case .cacheLoaded(let change):
            guard stepState.cacheLoadAnswered, case .config(let age)? = model.settings.cache,
                model.settings.usesStoredConfigs
            else {
                return try fail(.diagnosticSteps, "\(step) reported with no cached configuration loaded")
            }
            let version = model.cacheVersion ?? -1
            let expected = model.source == .live ? .ignored : model.change(applying: version)
            try require(expected == change, .storeAgreesWithModel, "\(step): the model expected \(expected)")
            if change == .updated { stepState.predictedUpdates += 1 }
            let fetchedAt = age.map { (model.now - $0 - 0.25)...(model.now - $0 + 0.25) }
            model.apply(change, version: version, source: .cache, fetchedAt: fetchedAt)
            if change == .first { model.startRefreshingAfterFirstConfig() }
        case .cacheRejected:
            stepState.cacheRejected = true
            try require(
                stepState.cacheLoadAnswered && [.unreadable, .corrupt].contains(model.settings.cache), .diagnosticSteps,
                "\(step) reported, but the cache held \(String(describing: model.settings.cache))")
        case .cacheCleared:
            try require(
                stepState.cacheRejected && model.settings.cache == .corrupt, .diagnosticSteps,
                "\(step) reported, but no corrupt cache was rejected")
        case .cacheSaved, .cacheWriteFailed:
            break
        case .refreshScheduled(let interval):
            stepState.scheduledReports += 1
            try require(
                model.settings.effectiveRefreshInterval == interval && stepState.answeredResult?.isSuccess == true,
                .diagnosticSteps,
                "\(step) reported, but the refresh interval is \(literal(model.settings.effectiveRefreshInterval)) and no fetch succeeded"
            )
        case .refreshRequested(.demand):
            stepState.demandReports += 1
            let isRefresh: Bool = {
                if case .refreshNow? = stepState.operation { return true }
                return false
            }()
            try require(
                isRefresh && stepState.inFlightAtStart == nil && stepState.demandReports == 1, .diagnosticSteps,
                "\(step) reported, but no refreshNow() started a fetch (fetch \(stepState.inFlightAtStart ?? 0) in flight)"
            )
        case .refreshRequested:
            stepState.requestReports += 1
            try require(
                stepState.requestAllowed && stepState.requestReports == 1, .ageCountsFromFetch,
                "\(step) reported, but the configuration is \(model.staleness) (age \(String(describing: model.age)), time to live \(literal(model.timeToLive))) or a request was reported already"
            )
            model.requestReported = true
            model.requestMaybeWithdrawn = false
        case .refreshSkipped(let age, _):
            stepState.skippedReports += 1
            try require(
                stepState.skippedAllowed && stepState.skippedReports == 1, .ageCountsFromFetch,
                "\(step) reported, but the configuration is \(model.staleness) (age \(String(describing: model.age)))")
            if let range = model.age {
                try require(
                    age >= range.lowerBound - 0.001 && age <= range.upperBound + 0.001, .ageCountsFromFetch,
                    "\(step): the configuration's age is \(range)")
            }
        case .refreshPaused, .refreshResumed:
            stepState.pauseReports += 1
        case .refreshHeld:
            try require(
                model.isPaused, .diagnosticSteps, "\(step) reported while nothing pauses refreshes")
        case .stopped:
            try require(
                !model.stoppedReported && (model.isStopped || model.dropRequested || model.storeFailedBySDK),
                .diagnosticSteps,
                "\(step) reported, but the lifecycle \(model.stoppedReported ? "had reported it" : "was not stopped")")
            model.stoppedReported = true
        @unknown default:
            // A step a later lifecycle reports: nothing the model knows to check.
            break
        }
    }

    /// A result step must answer the lifecycle's fetch this step, once.
    private mutating func requireAnswer(success: Bool, _ step: LifecycleDiagnostic) throws {
        stepState.resultReports += 1
        try require(
            stepState.answered != nil && stepState.resultReports == 1 && stepState.answeredResult?.isSuccess == success,
            .diagnosticSteps,
            "\(step) reported, but the lifecycle's fetch answered this step was \(stepState.answered.map { "\($0.answer)" } ?? "none")"
        )
    }

    // MARK: Announcements and callers

    private mutating func announced(_ payload: SimulatedPayload) throws {
        switch payload {
        case .ready(let readiness, let version):
            try require(
                model.announced == nil, .readinessDecidedOnce, "a second ready event: \(readiness)")
            try require(
                model.decision == .ready(readiness.source) && version == model.version, .readinessDecidedOnce,
                "the ready event announced \(readiness) with version \(version.map(String.init) ?? "nil"); the model decided \(String(describing: model.decision)) with version \(model.version.map(String.init) ?? "nil")"
            )
            model.announced = readiness
            model.announcedVersion = version
        case .updated(let previous, let current):
            stepState.updateEvents += 1
            try require(
                previous == model.announcedVersion && current != previous && current == model.version,
                .updatesAnnouncedOncePerChange,
                "an update from \(previous.map(String.init) ?? "nil") to \(current); the last announced was \(model.announcedVersion.map(String.init) ?? "nil"), the model holds \(model.version.map(String.init) ?? "nil")"
            )
            model.announcedVersion = current
        }
    }

    private mutating func readyReturned(_ id: Int, _ result: Result<Readiness, any Error>) throws {
        guard let caller = model.readyCallers.removeValue(forKey: id) else {
            return try fail(.readinessDecidedOnce, "ready() caller \(id) returned twice")
        }
        if caller.isExcused { return }
        switch result {
        case .success(let readiness):
            try require(
                model.announced != nil, .readyEventBeforeReturn,
                "ready() caller \(id) returned \(readiness) before the ready event was fired")
            try require(
                readiness.source == model.announced?.source && readiness.date == model.announced?.date,
                .readinessDecidedOnce,
                "ready() caller \(id) got \(readiness); the ready event announced \(String(describing: model.announced))"
            )
        case .failure(let error as ReadinessError) where error != .shutDown:
            // Readiness decided at the very instant of the deadline is a tie either may win.
            let decidedAtTheDeadline =
                caller.deadline.flatMap { deadline in
                    model.decidedAt.map { $0 >= deadline - LifecycleModel.epsilon }
                } == true
            try require(
                (model.decision == nil || decidedAtTheDeadline)
                    && (caller.waitsNotAtAll
                        || caller.deadline.map { model.now >= $0 - LifecycleModel.epsilon } == true),
                .readyTimesOut,
                "ready() caller \(id) threw \(error) at \(model.now) (deadline \(literal(caller.deadline))), readiness \(String(describing: model.decision))"
            )
        case .failure(let error as ReadinessError):
            let droppedOverSDKStore = model.settings.composition == .clientOverSDKStore && model.decision != .shutDown
            try require(
                !droppedOverSDKStore, .droppedClientLeavesSDKStore,
                "ready() caller \(id) threw \(error) though only the SDK can end its store")
            try require(
                model.decision == .shutDown, .readinessDecidedOnce,
                "ready() caller \(id) threw \(error); readiness \(String(describing: model.decision))")
        case .failure(let error as CancellationError):
            try require(
                caller.isCancelled, .cancelledCallsReturn, "ready() caller \(id) threw \(error) but was not cancelled")
        case .failure(let error):
            try require(
                model.decision == .failed(String(describing: error)), .readinessDecidedOnce,
                "ready() caller \(id) threw \(error); readiness \(String(describing: model.decision))")
        }
    }

    private mutating func refreshReturned(_ id: Int, _ result: Result<ConfigChange, any Error>) throws {
        guard let caller = model.refreshCallers.removeValue(forKey: id) else {
            return try fail(.refreshReturnsWithItsFetch, "refreshNow() caller \(id) returned twice")
        }
        if caller.isExcused { return }
        let thrown = result.failureDescription
        if caller.isCancelled, thrown == String(describing: CancellationError()) { return }
        if model.isStopped || model.storeFailedBySDK {
            let allowed =
                model.stopErrors
                + (model.decision.flatMap { if case .failed(let e) = $0 { e } else { nil } }.map { [$0] } ?? [])
            if let thrown, allowed.contains(thrown) { return }
        }
        guard let answered = stepState.answered, caller.fetch == answered.fetch,
            let expected = stepState.answeredResult
        else {
            return try fail(
                .refreshReturnsWithItsFetch,
                "refreshNow() caller \(id) returned \(result) with its fetch (\(caller.fetch.map(String.init) ?? "none")) still in flight, and no stop (\(model.stopReasons))"
            )
        }
        let matches =
            switch (result, expected) {
            case (.success(let change), .success(let expectedChange)): change == expectedChange
            case (.failure, .failure(let error)): thrown == String(describing: error)
            default: false
            }
        try require(
            matches, .refreshReturnsWithItsFetch,
            "refreshNow() caller \(id) returned \(result); its fetch \(answered.fetch) ended with \(expected)")
    }

    // MARK: The end of a step

    /// Checks what must hold once a step's jobs ran out.
    mutating func endStep(_ probe: StepProbe) throws {
        let droppedThisStep = model.dropRequested && model.clientAlive && !probe.clientAlive
        if droppedThisStep {
            // The client went away in this step: its lifecycle stops, and its own store with it.
            model.clientAlive = false
            stop(.shutDown)
            if model.settings.composition != .clientOverSDKStore { model.decision = .shutDown }
        }
        let state = stepState
        // A dropped client goes when its last holder (a waiting `ready()`) lets go, which may be
        // just after its loop started a fetch: the cancelled loop abandons it before calling it.
        let abandonedByTheDrop = droppedThisStep && state.fetchStartedReports == state.fetchCalls + 1
        try require(
            state.fetchStartedReports == state.fetchCalls || abandonedByTheDrop, .diagnosticSteps,
            "\(state.fetchStartedReports) .fetchStarted step(s) for \(state.fetchCalls) fetch(es)")
        if let answered = state.answered {
            try require(
                state.resultReports == 1, .diagnosticSteps,
                "fetch \(answered.fetch) was answered and the lifecycle reported \(state.resultReports) result step(s)")
            if state.answeredResult?.isSuccess == true, model.settings.effectiveRefreshInterval != nil {
                try require(
                    state.scheduledReports == 1, .diagnosticSteps,
                    "a successful fetch reported \(state.scheduledReports) .refreshScheduled step(s)")
            }
        }
        try require(
            state.readinessFailedReports == state.expectedReadinessFailed, .diagnosticSteps,
            "\(state.readinessFailedReports) .readinessFailed step(s) where readiness failed \(state.expectedReadinessFailed) time(s)"
        )
        try require(
            state.predictedUpdates == state.updateEvents, .updatesAnnouncedOncePerChange,
            "\(state.updateEvents) update event(s) for \(state.predictedUpdates) change(s) of the configuration")
        if state.requestRequired {
            try require(
                state.requestReports == 1, .ageCountsFromFetch,
                "the configuration is stale (age \(String(describing: model.age)), time to live \(literal(model.timeToLive))) and \(state.operation.map { "\($0)" } ?? "") requested no refresh"
            )
        }
        if state.skippedRequired {
            try require(
                state.skippedReports == 1, .ageCountsFromFetch,
                "the configuration is fresh (age \(String(describing: model.age))) and the foreground reported no .refreshSkipped"
            )
        }
        try require(
            state.pauseReportsAllowed.contains(state.pauseReports) || (!model.isRunning && state.pauseReports <= 1),
            .diagnosticSteps,
            "\(state.operation.map { "\($0)" } ?? "") reported \(state.pauseReports) pause step(s), not \(state.pauseReportsAllowed)"
        )
        if model.stoppedReportDue, !model.stoppedReported,
            model.stopReasons.contains(.shutDown) || !probe.callPending
        {
            try require(
                false, .stopEndsTheLifecycle, "the lifecycle stopped (\(model.stopReasons)) and reported no .stopped")
            model.stoppedReportDue = false
        }
        if state.shutdownCalled {
            try require(
                state.shutdownReturned, .stopEndsTheLifecycle, "shutdown() did not return in the step it was called")
        }
        try endRefreshes()
        try endReadies()
        if let overdue = model.overdueFetch {
            try require(false, .dueFetchRuns, "at \(model.now), \(overdue) has not started")
        }
        if let deadline = model.degradedDeadline, model.decision == nil, model.isRunning,
            model.now >= deadline + LifecycleModel.epsilon
        {
            try require(
                false, .degradedDeadlinePasses, "the degraded deadline \(deadline) passed at \(model.now), undecided")
        }
        if let storeIsReady = probe.storeIsReady, let storeIsDecided = probe.storeIsDecided {
            let ready: Bool = if case .ready? = model.decision { true } else { false }
            let invariant = storeInvariant
            try require(
                storeIsReady == ready && storeIsDecided == model.isDecided, invariant,
                "the store is \(storeIsReady ? "" : "not ")ready and \(storeIsDecided ? "" : "un")decided; the model's readiness is \(String(describing: model.decision))"
            )
            if let version = probe.storeVersion {
                try require(
                    version == model.version, invariant,
                    "the store holds version \(version.map(String.init) ?? "nil"), the model \(model.version.map(String.init) ?? "nil")"
                )
            }
        }
    }

    /// Checks what must hold over the whole run: reads are never a network request by themselves,
    /// so over a span S the schedule starts at most S / 0.1 s + 1 fetches (§2).
    func endRun() throws {
        let bound = Int((model.now / LifecycleModel.floor).rounded(.down)) + 1
        try require(
            model.scheduledFetches <= bound, .scheduleFloor,
            "the schedule started \(model.scheduledFetches) fetches in \(model.now) s, more than \(bound)")
    }

    /// What a disagreement with the SDK's store breaks: once the SDK let go of a client made over
    /// its store, the store was left as it was, or not.
    private var storeInvariant: Invariant {
        model.settings.composition == .clientOverSDKStore && model.dropRequested
            ? .droppedClientLeavesSDKStore : .storeAgreesWithModel
    }

    /// Every refresh is bound to a fetch, or has returned when it had to (§1).
    private mutating func endRefreshes() throws {
        for (id, caller) in model.refreshCallers.sorted(by: { $0.key < $1.key }) where !caller.isExcused {
            var holds = true
            if caller.isCancelled || model.isStopped {
                holds = try require(
                    false, caller.isCancelled ? .cancelledCallsReturn : .stopEndsTheLifecycle,
                    "refreshNow() caller \(id) still waits, though \(caller.isCancelled ? "its task was cancelled" : "the lifecycle stopped (\(model.stopReasons))")"
                )
            } else if caller.fetch == nil {
                if let inFlight = model.inFlight {
                    model.refreshCallers[id]?.fetch = inFlight
                } else if model.hasLifecycle {
                    holds = try require(
                        false, model.startupDone ? .refreshStartsOrJoins : .refreshDoesNotWaitForTheCache,
                        "refreshNow() caller \(id) neither started nor joined a fetch (paused \(model.isPaused), decided \(model.isDecided), cache answered \(model.startupDone))"
                    )
                    model.lateDemand = true
                }
            } else if caller.fetch != model.inFlight {
                holds = try require(
                    false, .refreshReturnsWithItsFetch,
                    "refreshNow() caller \(id) still waits, though its fetch \(caller.fetch!) ended")
            }
            if !holds { model.refreshCallers[id]?.isExcused = true }
        }
    }

    /// Every readiness caller has returned when it had to (§8, §9).
    private mutating func endReadies() throws {
        for (id, caller) in model.readyCallers.sorted(by: { $0.key < $1.key }) where !caller.isExcused {
            var holds = true
            let isDecided: Bool =
                switch model.decision {
                case nil: false
                case .ready?: model.announced != nil
                case .failed?, .shutDown?: true
                }
            if caller.isCancelled {
                holds = try require(
                    false, .cancelledCallsReturn, "ready() caller \(id) still waits, though its task was cancelled")
            } else if isDecided {
                holds = try require(
                    false, .readyReturnsOnDecision,
                    "ready() caller \(id) still waits at \(model.now), though readiness was decided (\(model.decision!)) (clock \(model.settings.clock))"
                )
            } else if caller.waitsNotAtAll || caller.deadline.map({ model.now >= $0 + LifecycleModel.epsilon }) == true
            {
                holds = try require(
                    false, .readyTimesOut,
                    "ready() caller \(id) still waits at \(model.now), past its deadline \(literal(caller.deadline))")
            }
            if !holds { model.readyCallers[id]?.isExcused = true }
        }
    }
}

extension Result {
    var isSuccess: Bool {
        if case .success = self { return true }
        return false
    }

    /// The error's description, when it failed.
    var failureDescription: String? {
        if case .failure(let error) = self { return String(describing: error) }
        return nil
    }
}
