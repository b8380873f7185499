import Foundation
import SDKEventBusConfig
import SDKEventBusTesting

/// Something the simulation saw happen, in the order it happened.
enum Observation {
    /// The step's operation began (recorded before anything it causes).
    case operation(SimulationOperation)
    /// The SDK created its parts (step 0), with an initial configuration of this version, if any.
    case created(initialVersion: Int?)
    case clockMoved(to: TimeInterval)
    case diagnostic(LifecycleDiagnostic)
    case fetchCalled(Int)
    case fetchAnswered(Int, FetchAnswer, version: Int?)
    case cacheLoadCalled
    case cacheLoadAnswered(version: Int?)
    case cacheWritten(version: Int?)
    case announced(SimulatedPayload)
    /// A readiness caller started; `probe` when it arrived during an announcement.
    case readyCalled(Int, timeout: TimeInterval?, probe: Bool)
    case readyReturned(Int, Result<Readiness, any Error>)
    case refreshCalled(Int)
    case refreshReturned(Int, Result<ConfigChange, any Error>)
    /// The task of a caller was cancelled.
    case cancelled(Int, isRefresh: Bool)
    /// The SDK sets configuration `version` on its store, fetched `age` seconds ago.
    case sdkSetConfig(version: Int, ConfigSource, age: TimeInterval?)
    case setConfigReturned(ConfigChange, version: Int)
    case setDegradedReturned(Bool)
    case failReadinessReturned(Bool)
    case shutdownReturned
    case configRead(version: Int?)
}

/// Everything outside the configuration half, scripted: the deterministic executor, time, the
/// network, the disk, and the record of what happened.
///
/// Each call the lifecycle makes into it (a fetch, a cache load, a sleep, a diagnostic, an event)
/// is recorded, and a fetch or a cache load waits until an operation answers it. Every callback is
/// expected on the thread that turns the executor's crank: one that comes from another thread is
/// work that escaped the executor, and is reported.
@available(macOS 15, iOS 18, tvOS 18, watchOS 11, visionOS 2, *)
final class SimulatedWorld: @unchecked Sendable {
    private struct PendingFetch {
        let number: Int
        var continuation: CheckedContinuation<SimulatedConfig, any Error>?
        var isCancelled = false
    }

    private struct State {
        var trace: [Observation] = []
        var fetches: [PendingFetch] = []
        var fetchCount = 0
        var cacheLoad: CheckedContinuation<SimulatedConfig?, any Error>?
        var cacheLoadCancelled = false
        var cacheSavedAt: Date?
        var ignoringSleepers: [(deadline: TimeInterval, continuation: CheckedContinuation<Void, Never>)] = []
        /// The last version handed out, to the service or to the SDK.
        var lastVersion = 0
        var escapes: [String] = []
    }

    let settings: SimulationSettings
    let executor = DeterministicExecutor()
    let testClock = TestClock()
    private let lock = NSLock()
    /// Guarded by `lock`.
    private var state = State()
    /// The thread that runs the simulation; set once, before the first job.
    nonisolated(unsafe) var pumpThread: Thread?
    /// Runs inside each diagnostic that precedes a readiness announcement, when the settings probe
    /// announcements; set once, before the first job.
    nonisolated(unsafe) var announcementProbe: (@Sendable () -> Void)?
    private var schedule: SplitMix64

    init(settings: SimulationSettings) {
        self.settings = settings
        schedule = SplitMix64(seed: settings.schedule)
    }

    private func withState<T>(_ body: (inout State) -> T) -> T {
        lock.withLock { body(&state) }
    }

    // MARK: The record

    /// What was observed from position `mark` of the record on.
    func observations(since mark: Int) -> [Observation] { withState { Array($0.trace[mark...]) } }
    var escapes: [String] { withState { $0.escapes } }

    func record(_ observation: Observation) {
        withState { $0.trace.append(observation) }
    }

    /// Notes a callback that ran off the simulation's thread: work that escaped the executor.
    private func checkOnPump(_ what: String) {
        guard let pumpThread, Thread.current !== pumpThread else { return }
        withState { $0.escapes.append("\(what) ran on another thread than the simulation's") }
    }

    /// The lifecycle's diagnostics handler.
    func diagnose(_ step: LifecycleDiagnostic) {
        checkOnPump("a diagnostic (\(step))")
        record(.diagnostic(step))
        if settings.probesAnnouncements, step.precedesAnnouncement { announcementProbe?() }
    }

    /// The immediate listener of every event of the simulated catalog.
    func announce(_ payload: SimulatedPayload) {
        checkOnPump("an event")
        record(.announced(payload))
    }

    /// A version no configuration had before.
    func newVersion() -> Int {
        withState { state in
            state.lastVersion += 1
            return state.lastVersion
        }
    }

    // MARK: The executor

    /// Runs ready jobs, in the order the schedule's seed picks, until none is left.
    ///
    /// - Returns: `false` when the jobs did not run out within the bound: a livelock.
    func runUntilIdle() -> Bool {
        executor.runUntilIdle(limit: 200_000) { Int(schedule.next() % UInt64($0)) } < 200_000
    }

    /// Runs the jobs enqueued since `start` (jobs queued before stay queued): a caller that arrives
    /// inside a job, as one on another thread can, played out at once.
    func runNested(from start: Int) {
        while executor.readyCount > start {
            executor.runOne { start + Int(schedule.next() % UInt64($0 - start)) }
        }
    }

    // MARK: The network

    /// The SDK's fetch function: waits until an operation answers it.
    func fetch() async throws -> SimulatedConfig {
        checkOnPump("a fetch")
        let number = withState { state in
            state.fetchCount += 1
            state.fetches.append(PendingFetch(number: state.fetchCount))
            state.trace.append(.fetchCalled(state.fetchCount))
            return state.fetchCount
        }
        return try await withTaskCancellationHandler {
            try await withCheckedThrowingContinuation { continuation in
                let early = withState { state -> Bool in
                    guard let index = state.fetches.firstIndex(where: { $0.number == number }) else { return false }
                    if state.fetches[index].isCancelled, !settings.fetchesIgnoreCancellation {
                        state.fetches.remove(at: index)
                        return true
                    }
                    state.fetches[index].continuation = continuation
                    return false
                }
                if early { continuation.resume(throwing: CancellationError()) }
            }
        } onCancel: {
            let cancelled = withState { state -> CheckedContinuation<SimulatedConfig, any Error>? in
                guard let index = state.fetches.firstIndex(where: { $0.number == number }) else { return nil }
                state.fetches[index].isCancelled = true
                guard !settings.fetchesIgnoreCancellation, let continuation = state.fetches[index].continuation
                else { return nil }
                state.fetches.remove(at: index)
                return continuation
            }
            cancelled?.resume(throwing: CancellationError())
        }
    }

    /// How many fetches wait for an answer.
    var pendingFetchCount: Int { withState { $0.fetches.count } }

    /// How many fetches the lifecycle made.
    var fetchCount: Int { withState { $0.fetchCount } }

    /// Answers the pending fetch at `index` (modulo their count); `current` is the version in effect,
    /// which ``FetchAnswer/sameConfig`` serves again.
    func answerFetch(_ index: Int, _ answer: FetchAnswer, current: Int?) {
        let pending = withState { state -> PendingFetch? in
            guard !state.fetches.isEmpty else { return nil }
            let index = index % state.fetches.count
            guard state.fetches[index].continuation != nil else { return nil }
            return state.fetches.remove(at: index)
        }
        guard let fetch = pending, let continuation = fetch.continuation else { return }
        let error = { (kind: SimulatedFetchError.Kind, retryAfter: TimeInterval?) in
            SimulatedFetchError(kind: kind, retryAfter: retryAfter, fetch: fetch.number)
        }
        switch answer {
        case .newConfig, .sameConfig:
            let version = answer == .sameConfig ? current ?? newVersion() : newVersion()
            record(.fetchAnswered(fetch.number, answer, version: version))
            continuation.resume(returning: SimulatedConfig(version: version))
        case .failure(let retryAfter):
            record(.fetchAnswered(fetch.number, answer, version: nil))
            continuation.resume(throwing: error(.retryable, retryAfter))
        case .notRetryable:
            record(.fetchAnswered(fetch.number, answer, version: nil))
            continuation.resume(throwing: error(.notRetryable, nil))
        case .endsReadiness:
            record(.fetchAnswered(fetch.number, answer, version: nil))
            continuation.resume(throwing: error(.endsReadiness, nil))
        }
    }

    // MARK: The disk

    /// The cache's `load()`: waits until an operation answers it.
    func loadCache() async throws -> SimulatedConfig? {
        checkOnPump("a cache load")
        record(.cacheLoadCalled)
        return try await withTaskCancellationHandler {
            try await withCheckedThrowingContinuation { continuation in
                let early = withState { state -> Bool in
                    if state.cacheLoadCancelled, !settings.cacheIgnoresCancellation { return true }
                    state.cacheLoad = continuation
                    return false
                }
                if early { continuation.resume(throwing: CancellationError()) }
            }
        } onCancel: {
            let cancelled = withState { state -> CheckedContinuation<SimulatedConfig?, any Error>? in
                state.cacheLoadCancelled = true
                guard !settings.cacheIgnoresCancellation else { return nil }
                defer { state.cacheLoad = nil }
                return state.cacheLoad
            }
            cancelled?.resume(throwing: CancellationError())
        }
    }

    var isCacheLoadPending: Bool { withState { $0.cacheLoad != nil } }

    /// Answers the pending cache load with what the settings say the cache holds.
    func answerCacheLoad() {
        guard
            let continuation = withState({ state in
                defer { state.cacheLoad = nil }
                return state.cacheLoad
            })
        else {
            return
        }
        switch settings.cache {
        case nil, .empty?:
            record(.cacheLoadAnswered(version: nil))
            continuation.resume(returning: nil)
        case .config(let age)?:
            let version = newVersion()
            record(.cacheLoadAnswered(version: version))
            withState { $0.cacheSavedAt = age.map { Date(timeIntervalSinceNow: -$0) } }
            continuation.resume(returning: SimulatedConfig(version: version))
        case .unreadable?:
            record(.cacheLoadAnswered(version: nil))
            continuation.resume(throwing: CocoaError(.fileReadNoPermission))
        case .corrupt?:
            record(.cacheLoadAnswered(version: nil))
            do {
                _ = try SimulatedConfig.decode(from: Data("{\"version\":".utf8))
            } catch {
                continuation.resume(throwing: error)
            }
        }
    }

    /// The cache's `save(_:body:)` and `clear()`: at once.
    func writeCache(_ config: SimulatedConfig?) {
        checkOnPump("a cache write")
        record(.cacheWritten(version: config?.version))
        withState { $0.cacheSavedAt = config.map { _ in Date() } }
    }

    var cacheSavedAt: Date? { withState { $0.cacheSavedAt } }

    // MARK: Time

    /// Moves time to `instant`, waking the sleepers of every clock whose deadline has come.
    func advance(to instant: TimeInterval) {
        testClock.advance(to: instant)
        let now = testClock.now
        let due = withState { state in
            let due = state.ignoringSleepers.filter { $0.deadline <= now }
            state.ignoringSleepers.removeAll { $0.deadline <= now }
            return due.map(\.continuation)
        }
        for continuation in due { continuation.resume() }
    }

    /// A sleep that ignores cancellation: it returns only once time reaches `deadline`.
    func sleepIgnoringCancellation(until deadline: TimeInterval) async {
        checkOnPump("a sleep")
        guard deadline > testClock.now else { return }
        await withCheckedContinuation { continuation in
            withState { $0.ignoringSleepers.append((deadline, continuation)) }
        }
    }

    var ignoringSleeperCount: Int { withState { $0.ignoringSleepers.count } }

    /// The clock the settings name, for the lifecycle and for timed `ready(timeout:clock:)` calls.
    var lifecycleClock: any LifecycleClock {
        switch settings.clock {
        case .testClock: testClock
        case .sdkClock: SimulatedSDKClock(scheduler: testClock)
        case .sdkClockIgnoringCancellation: IgnoringCancellationClock(world: self)
        }
    }
}

extension LifecycleDiagnostic {
    /// Whether the step is reported inside a readiness decision, before it is announced.
    var precedesAnnouncement: Bool {
        switch self {
        case .configApplied(.first), .initialConfigApplied(.first), .cacheLoaded(.first), .degradedStart,
            .readinessFailed:
            true
        default:
            false
        }
    }
}

/// The simulated SDK's fetch service.
@available(macOS 15, iOS 18, tvOS 18, watchOS 11, visionOS 2, *)
struct SimulatedFetchService: ConfigFetching {
    let world: SimulatedWorld

    func fetchLiveConfig() async throws -> SimulatedConfig {
        try await world.fetch()
    }
}

/// The simulated SDK's cache: its loads wait for the simulation; its writes happen at once.
@available(macOS 15, iOS 18, tvOS 18, watchOS 11, visionOS 2, *)
struct SimulatedCache: ConfigCache {
    let world: SimulatedWorld

    func load() async throws -> SimulatedConfig? { try await world.loadCache() }
    func save(_ config: SimulatedConfig, body: Data) async throws { world.writeCache(config) }
    func clear() async throws { world.writeCache(nil) }
    var lastSaved: Date? { get async { world.cacheSavedAt } }
}

/// An SDK's own clock, kept by a scheduler of its own (here the test clock), whose sleep honours
/// cancellation: the package reads it in seconds, through no type of its own.
struct SimulatedSDKClock: LifecycleClock {
    let scheduler: TestClock

    var now: TimeInterval { scheduler.now }

    func sleep(until deadline: TimeInterval) async throws {
        try await scheduler.sleep(until: deadline)
    }
}

/// An SDK's own clock whose sleep ignores cancellation, as `DispatchQueue.asyncAfter` with a
/// continuation does: it returns only when time reaches the deadline, cancelled or not.
@available(macOS 15, iOS 18, tvOS 18, watchOS 11, visionOS 2, *)
struct IgnoringCancellationClock: LifecycleClock {
    let world: SimulatedWorld

    var now: TimeInterval { world.testClock.now }

    func sleep(until deadline: TimeInterval) async throws {
        await world.sleepIgnoringCancellation(until: deadline)
    }
}
