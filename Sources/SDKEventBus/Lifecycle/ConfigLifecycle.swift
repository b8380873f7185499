import Foundation

/// An SDK's configuration lifecycle as a component: the initial and cached configurations first,
/// then fetch → decode → store, refreshing on an interval and on demand, with backoff after
/// failures, until the task running it is cancelled.
///
/// ``CatalogueClient`` runs one. An SDK with its own facade runs one itself, in a task it owns or
/// in a task group (it stops when its task is cancelled, in the manner of swift-service-lifecycle):
///
/// ```swift
/// let (bus, emitter) = CatalogueBus<FlagEvent>.makeBus()
/// let store = CatalogueConfigStore(emitter: emitter)
/// let lifecycle = ConfigLifecycle(store: store, fetchService: flagService, configuration: settings)
/// let task = Task { await lifecycle.run() }
/// try await store.waitForReady()
/// // … at shutdown:
/// task.cancel()
/// store.shutdown()
/// ```
///
/// A failed fetch, including a malformed body, never touches the store: the last good configuration
/// stays in place, no event fires, and waiters keep waiting (unless the readiness policy resolves
/// a degraded start, or the error ends readiness). A fetch that does not honour cancellation is
/// abandoned when the task is cancelled: ``run()`` returns at once and the fetch's result is
/// discarded.
public final class ConfigLifecycle<Catalogue: LifecycleCatalogue>: Sendable {
    /// The configuration type.
    public typealias Config = Catalogue.Config

    /// The store the lifecycle fills.
    public let store: CatalogueConfigStore<Catalogue>
    /// How the lifecycle loads, refreshes and becomes ready.
    public let configuration: LifecycleConfiguration<Config>

    private let service: any ConfigFetchService<Config>
    let status = StatusRecorder()
    private let control = LockedValue(Control())
    /// Called after every step, for the client's observable status.
    let statusChanged = LockedValue<(@Sendable () -> Void)?>(nil)

    /// Creates a lifecycle; it starts when ``run()`` is called.
    ///
    /// - Parameters:
    ///   - store: The store to fill.
    ///   - fetchService: Where the configuration comes from.
    ///   - configuration: How to load, refresh and become ready.
    public init(
        store: CatalogueConfigStore<Catalogue>,
        fetchService: some ConfigFetchService<Config>,
        configuration: LifecycleConfiguration<Config> = LifecycleConfiguration()
    ) {
        self.store = store
        self.service = fetchService
        self.configuration = configuration
    }

    // MARK: Running

    /// Runs the lifecycle until the calling task is cancelled, off the caller's actor.
    ///
    /// Without a refresh interval it fetches until the first success, then only on demand. Calling
    /// it a second time returns at once.
    @concurrent
    public func run() async {
        guard control.withLock({ $0.start() }) else { return }
        await run(on: configuration.clock)
        let (waiters, reason) = control.withLock { $0.stop() }
        for waiter in waiters { waiter.resume(returning: .failure(reason)) }
        report(.stopped)
    }

    /// Fetches now, or joins the fetch already in flight, and returns what it did.
    ///
    /// Refreshes on demand run in low power mode too.
    ///
    /// - Returns: What the store did with the configuration.
    /// - Throws: The fetch's error; `CancellationError` when the calling task is cancelled (the
    ///   fetch goes on); ``ReadinessError`` with code ``ReadinessError/Code/shutDown`` once the
    ///   lifecycle has been shut down, also for a refresh in flight then; the error that ended
    ///   readiness once a fetch error ended it (a ``FetchRetryAdvice`` with `endsReadiness`) and
    ///   so stopped the lifecycle.
    ///
    /// Before ``run()`` has started, a refresh waits for it.
    @discardableResult
    public func refreshNow() async throws -> ConfigChange {
        let id = control.withLock { $0.makeRefreshID() }
        let result = await withTaskCancellationHandler {
            await withCheckedContinuation { (continuation: RefreshWaiter) in
                let (now, wake) = control.withLock { $0.addRefreshWaiter(id, continuation) }
                wake?.resume()
                if let now { continuation.resume(returning: now) }
            }
        } onCancel: {
            control.withLock { $0.cancelRefreshWaiter(id) }?.resume(returning: .failure(CancellationError()))
        }
        return try result.get()
    }

    /// Tells the lifecycle about the app's state: from an app-lifecycle hook.
    ///
    /// - Parameter event: What happened.
    public func handle(_ event: AppLifecycleEvent) {
        switch event {
        case .willEnterForeground:
            refreshIfStale(.foreground)
        case .didEnterBackground:
            break
        case .lowPowerModeChanged(let isEnabled):
            guard let wake = control.withLock({ $0.setPaused(isEnabled) }) else { return }
            report(.refreshPaused(isEnabled))
            wake.value?.resume()
        }
    }

    /// Refreshes in the background when the configuration is older than
    /// ``LifecycleConfiguration/timeToLive``; does nothing otherwise, or without one.
    ///
    /// The client calls it when its configuration is read.
    public func refreshIfStale() {
        refreshIfStale(.stale)
    }

    /// The state of the lifecycle, for diagnostics screens and logs.
    public var currentStatus: SDKStatus {
        status.snapshot(readiness: store.readiness, isShutDown: store.isShutDown)
    }

    private func refreshIfStale(_ reason: LifecycleDiagnostic.RefreshReason) {
        guard let timeToLive = configuration.timeToLive else { return }
        guard let wake = control.withLock({ $0.triggerIfStale(timeToLive: timeToLive, reason: reason) }) else { return }
        report(.refreshRequested(reason))
        wake.value?.resume()
    }

    // MARK: The loop

    private func run<C: Clock>(on clock: C) async where C.Duration == Duration {
        let start = clock.now
        control.withLock { $0.elapsed = { start.duration(to: clock.now) } }
        if case .degraded(let deadline?) = configuration.readinessPolicy.kind {
            // A task of its own, so that it can end as soon as readiness is decided (a sleeper
            // left on the clock would be the next deadline a test sees) and never outlives the run.
            let store = self.store
            let deadlineTask = Task {
                guard (try? await clock.sleep(for: deadline)) != nil else { return }
                let error = ReadinessError.timedOut(after: deadline)
                if await store.resolveDegraded(because: error) { self.report(.degradedStart(error)) }
            }
            control.withLock { $0.degradedDeadline = deadlineTask }
        }
        await loop(clock: clock)
        control.withLock { $0.takeDegradedDeadline() }?.cancel()
    }

    /// Ends the degraded deadline's wait once readiness is decided.
    private func endDegradedDeadlineIfDecided() {
        guard store.isDecided else { return }
        control.withLock { $0.takeDegradedDeadline() }?.cancel()
    }

    private func loop<C: Clock>(clock: C) async where C.Duration == Duration {
        var cached = await applyStartingConfigs()
        var failures = 0
        var nextFetch: C.Instant? = clock.now
        while true {
            endDegradedDeadlineIfDecided()
            guard await waitForFetch(until: nextFetch, clock: clock) else { return }
            report(.fetchStarted(attempt: failures + 1))
            let result = await fetch()
            guard !Task.isCancelled else {
                // Shutting down: whatever the fetch returned is discarded, never applied; a
                // refresh waiting for it learns that the lifecycle was shut down.
                finishFetch(.failure(ReadinessError.shutDown))
                return
            }
            switch result {
            case .success(let config):
                let change = await store.setConfig(config, from: .live)
                status.fetchSucceeded()
                status.applied(change, from: .live)
                if change != .ignored, config != cached {
                    cached = save(config) ? config : cached
                }
                report(.configApplied(change))
                failures = 0
                control.withLock { $0.recordFetch() }
                finishFetch(.success(change))
                nextFetch = configuration.refreshInterval.map { clock.now.advanced(by: $0) }
                if let interval = configuration.refreshInterval { report(.refreshScheduled(in: interval)) }
            case .failure(let error):
                failures += 1
                status.fetchFailed(error)
                store.recordError(error)
                // An error that ends readiness ends the lifecycle only while readiness is undecided;
                // once the SDK is ready (from a cache, an initial or a degraded start) it is a
                // failure like another, and the last good configuration stays in use.
                if let advice = error as? any FetchRetryAdvice, advice.endsReadiness,
                    store.failReadiness(with: error)
                {
                    report(.readinessFailed(error))
                    control.withLock { $0.stopReason = error }
                    finishFetch(.failure(error))
                    return
                }
                if configuration.readinessPolicy.resolvesDegraded, !store.isReady,
                    await store.resolveDegraded(because: error)
                {
                    report(.degradedStart(error))
                }
                let (wait, retryable) = retryDelay(after: error, failures: failures)
                report(.fetchFailed(error, attempt: failures, retryIn: wait))
                // A non-retryable error says nothing about the next one: back off from the start.
                if !retryable { failures = 0 }
                finishFetch(.failure(error))
                nextFetch = clock.now.advanced(by: wait)
            }
        }
    }

    /// Waits until the next fetch is due (`deadline`, unless paused) or asked for.
    ///
    /// - Returns: `false` when the task is cancelled.
    private func waitForFetch<C: Clock>(until deadline: C.Instant?, clock: C) async -> Bool
    where C.Duration == Duration {
        while !Task.isCancelled {
            switch control.withLock({ $0.nextStep() }) {
            case .fetch:
                return true
            case .waitForTrigger:
                guard await nextTrigger() else { return false }
            case .waitForDeadline:
                guard let deadline else {
                    guard await nextTrigger() else { return false }
                    continue
                }
                if deadline <= clock.now { return control.withLock { $0.beginFetch() } }
                switch await sleepOrTrigger(until: deadline, clock: clock) {
                case .timer:
                    if control.withLock({ $0.beginScheduledFetch() }) { return true }
                case .trigger:
                    continue
                case .cancelled:
                    return false
                }
            }
        }
        return false
    }

    private enum Wake: Sendable {
        case timer
        case trigger
        case cancelled
    }

    private func sleepOrTrigger<C: Clock>(until deadline: C.Instant, clock: C) async -> Wake
    where C.Duration == Duration {
        await withTaskGroup(of: Wake.self) { group in
            group.addTask {
                do {
                    try await clock.sleep(until: deadline, tolerance: nil)
                    return .timer
                } catch {
                    return .cancelled
                }
            }
            group.addTask { await self.nextTrigger() ? .trigger : .cancelled }
            let first = await group.next() ?? .cancelled
            group.cancelAll()
            return first
        }
    }

    /// Suspends until a trigger (a refresh asked for, a pause lifted) or cancellation.
    ///
    /// - Returns: `false` when the task is cancelled.
    private func nextTrigger() async -> Bool {
        await withTaskCancellationHandler {
            await withCheckedContinuation { (continuation: CheckedContinuation<Void, Never>) in
                if control.withLock({ $0.waitForTrigger(continuation) }) { continuation.resume() }
            }
        } onCancel: {
            control.withLock { $0.cancelTriggerWait() }?.resume()
        }
        return !Task.isCancelled
    }

    /// Runs one fetch; abandons it (and returns `CancellationError`) when the task is cancelled,
    /// whether the fetch honours cancellation or not.
    private func fetch() async -> Result<Config, any Error> {
        let service = self.service
        let first = FirstResult<Config>()
        let task = LockedValue<Task<Void, Never>?>(nil)
        do {
            return .success(
                try await withTaskCancellationHandler {
                    try await first.wait {
                        task.withLock { task in
                            task = Task {
                                do {
                                    first.finish(.success(try await service.fetchLiveConfig()))
                                } catch {
                                    first.finish(.failure(error))
                                }
                            }
                        }
                    }
                } onCancel: {
                    task.withLock { $0 }?.cancel()
                }
            )
        } catch {
            return .failure(error)
        }
    }

    private func finishFetch(_ result: Result<ConfigChange, any Error>) {
        for waiter in control.withLock({ $0.finishFetch() }) { waiter.resume(returning: result) }
    }

    /// Applies the injected configuration, then the cached one, as the readiness policy allows.
    ///
    /// - Returns: The configuration the cache holds, so that an unchanged one is not written again.
    private func applyStartingConfigs() async -> Config? {
        let usesStored = configuration.readinessPolicy.usesStoredConfigs
        if usesStored, let initial = configuration.initialConfig {
            let change = await store.setConfig(initial, from: .initial)
            status.applied(change, from: .initial)
            report(.initialConfigApplied(change))
        }
        guard let cache = configuration.cache else { return nil }
        do {
            guard let cached = try cache.load() else { return nil }
            if usesStored {
                let change = await store.setConfig(cached, from: .cache, fetchedAt: cache.lastSaved)
                status.applied(change, from: .cache)
                report(.cacheLoaded(change))
            }
            return cached
        } catch {
            status.cacheFailed(error)
            report(.cacheRejected(error))
            return nil
        }
    }

    /// Writes a new configuration to the cache, if there is one.
    ///
    /// - Returns: Whether the cache now holds `config`.
    private func save(_ config: Config) -> Bool {
        guard let cache = configuration.cache else { return false }
        do {
            try cache.save(config)
            return true
        } catch {
            report(.cacheWriteFailed(error))
            return false
        }
    }

    /// How long to wait after a failure, following the error's advice, and whether it advised
    /// retrying.
    private func retryDelay(after error: any Error, failures: Int) -> (Duration, retryable: Bool) {
        let policy = configuration.retryPolicy
        let advice = error as? any FetchRetryAdvice
        if let advice, !advice.isRetryable {
            // Backing off will not help (a rejected key, say): try again at the next refresh, or
            // after the longest backoff when there is none, so that readiness can still come.
            return (max(configuration.refreshInterval ?? policy.maximumDelay, RetryPolicy.minimumDelay), false)
        }
        let backoff = policy.delay(afterFailures: failures, random: .random(in: 0..<1))
        guard let requested = advice?.retryAfter else { return (backoff, true) }
        return (max(backoff, min(requested, ConfigFetchError.longestRetryAfter)), true)
    }

    private func report(_ step: LifecycleDiagnostic) {
        configuration.diagnostics?(step)
        statusChanged.withLock { $0 }?()
    }
}

extension ConfigLifecycle {
    typealias RefreshWaiter = CheckedContinuation<Result<ConfigChange, any Error>, Never>

    /// A continuation to resume after unlocking, boxed so that "none" and "nothing to do" differ.
    struct Wakeup: Sendable {
        let value: CheckedContinuation<Void, Never>?
    }

    /// What the loop does next.
    enum Step {
        case fetch
        case waitForTrigger
        case waitForDeadline
    }

    /// The lifecycle's shared state: triggers, refresh callers, the pause, the in-flight fetch.
    ///
    /// Plain state, guarded by a lock.
    struct Control: Sendable {
        private(set) var hasStarted = false
        private(set) var isStopped = false
        private(set) var isFetching = false
        private(set) var isPaused = false
        /// A refresh asked for ahead of schedule, not yet started.
        private var isTriggered = false
        private var triggerWaiter: CheckedContinuation<Void, Never>?
        private var triggerWaitCancelled = false
        private var refreshWaiters: [UInt64: RefreshWaiter] = [:]
        private var cancelledRefreshes: Set<UInt64> = []
        private var nextRefreshID: UInt64 = 0
        /// Time on the lifecycle's clock since it started, and at the last successful fetch.
        var elapsed: (@Sendable () -> Duration)?
        private var lastSuccessfulFetch: Duration?

        mutating func start() -> Bool {
            guard !hasStarted else { return false }
            hasStarted = true
            return true
        }

        /// Why the loop ended, when not by shutdown: the error that ended readiness.
        var stopReason: (any Error)?
        /// The degraded deadline's task, until readiness is decided.
        var degradedDeadline: Task<Void, Never>?

        mutating func takeDegradedDeadline() -> Task<Void, Never>? {
            defer { degradedDeadline = nil }
            return degradedDeadline
        }

        /// What refresh callers get once stopped: the error that ended readiness, or shutdown.
        var stopError: any Error { stopReason ?? ReadinessError.shutDown }

        /// Stops for good; returns the refresh callers to fail, and the error to fail them with.
        mutating func stop() -> (waiters: [RefreshWaiter], error: any Error) {
            isStopped = true
            defer { refreshWaiters = [:] }
            return (Array(refreshWaiters.values), stopError)
        }

        mutating func nextStep() -> Step {
            if isTriggered { return beginFetch() ? .fetch : .waitForTrigger }
            return isPaused ? .waitForTrigger : .waitForDeadline
        }

        mutating func beginFetch() -> Bool {
            isTriggered = false
            isFetching = true
            return true
        }

        /// The timer fired: fetch, unless a pause began meanwhile.
        mutating func beginScheduledFetch() -> Bool {
            guard !isPaused else { return false }
            return beginFetch()
        }

        /// Ends a fetch; returns the refresh callers waiting for it.
        mutating func finishFetch() -> [RefreshWaiter] {
            isFetching = false
            defer { refreshWaiters = [:] }
            return Array(refreshWaiters.values)
        }

        mutating func recordFetch() {
            lastSuccessfulFetch = elapsed?()
        }

        mutating func waitForTrigger(_ continuation: CheckedContinuation<Void, Never>) -> Bool {
            if isTriggered || triggerWaitCancelled {
                triggerWaitCancelled = false
                return true
            }
            triggerWaiter = continuation
            return false
        }

        mutating func cancelTriggerWait() -> CheckedContinuation<Void, Never>? {
            guard let waiter = triggerWaiter else {
                triggerWaitCancelled = true
                return nil
            }
            triggerWaiter = nil
            return waiter
        }

        /// Asks for a fetch now; returns the loop to wake.
        private mutating func trigger() -> Wakeup {
            isTriggered = true
            return wake()
        }

        private mutating func wake() -> Wakeup {
            defer { triggerWaiter = nil }
            return Wakeup(value: triggerWaiter)
        }

        mutating func makeRefreshID() -> UInt64 {
            defer { nextRefreshID += 1 }
            return nextRefreshID
        }

        /// Registers a `refreshNow()` caller.
        ///
        /// - Returns: A result to resume it with now (the lifecycle stopped, the caller was
        ///   cancelled), and the loop to wake.
        mutating func addRefreshWaiter(_ id: UInt64, _ waiter: RefreshWaiter) -> (
            Result<ConfigChange, any Error>?, CheckedContinuation<Void, Never>?
        ) {
            if isStopped { return (.failure(stopError), nil) }
            if cancelledRefreshes.remove(id) != nil { return (.failure(CancellationError()), nil) }
            refreshWaiters[id] = waiter
            return (nil, isFetching ? nil : trigger().value)
        }

        mutating func cancelRefreshWaiter(_ id: UInt64) -> RefreshWaiter? {
            guard let waiter = refreshWaiters.removeValue(forKey: id) else {
                cancelledRefreshes.insert(id)
                return nil
            }
            return waiter
        }

        /// Pauses or resumes periodic fetches.
        ///
        /// - Returns: The loop to wake when the pause changed; `nil` when it did not.
        mutating func setPaused(_ paused: Bool) -> Wakeup? {
            guard isPaused != paused else { return nil }
            isPaused = paused
            return wake()
        }

        /// Triggers a fetch when the last successful one is older than `timeToLive`.
        ///
        /// - Returns: The loop to wake when it triggered one.
        mutating func triggerIfStale(timeToLive: Duration, reason: LifecycleDiagnostic.RefreshReason) -> Wakeup? {
            guard !isStopped, !isFetching, !isTriggered, let last = lastSuccessfulFetch, let now = elapsed?(),
                now - last >= timeToLive
            else { return nil }
            return trigger()
        }
    }
}
