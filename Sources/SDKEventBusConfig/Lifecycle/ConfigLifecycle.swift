import Foundation

/// An SDK's configuration lifecycle as a component: the initial and cached configurations first,
/// then fetch → decode → store, refreshing on an interval and on demand, with backoff after
/// failures, until the task running it is cancelled.
///
/// ``CatalogClient`` runs one, in the task it owns; an SDK that keeps its own store hands it to
/// ``CatalogClient/init(store:configuration:fetchService:)``. The lifecycle stops when its task is
/// cancelled.
///
/// A failed fetch, including a malformed body, never touches the store: the last good configuration
/// stays in place, no event fires, and waiters keep waiting (unless the readiness policy resolves
/// a degraded start, or the error ends readiness). A fetch or cache call that does not honour
/// cancellation is abandoned when the task is cancelled: ``run()`` returns at once and the call's
/// result is discarded.
///
/// Low power mode (``handle(_:)``) pauses periodic refreshes and retries once the SDK is ready; it
/// never holds the first fetch, a retry that readiness waits for, the degraded deadline, or
/// ``refreshNow()``.
final class ConfigLifecycle<Catalog: LifecycleCatalog>: Sendable {
    /// The configuration type.
    typealias Config = Catalog.Config

    /// The store the lifecycle fills.
    let store: CatalogConfigStore<Catalog>
    /// How the lifecycle loads, refreshes and becomes ready.
    let configuration: LifecycleConfiguration<Config>

    typealias RefreshWaiter = CheckedContinuation<Result<ConfigChange, any Error>, Never>
    typealias LoopWake = LifecycleLoopWake
    typealias Machine = LifecycleStateMachine<CheckedContinuation<LoopWake, Never>, RefreshWaiter>

    private let service: any ConfigFetching<Config>
    let status = StatusRecorder()
    let control = LockedValue(Machine())
    /// When the lifecycle started, on its clock (nanoseconds); set when it starts.
    private let startedAt = LockedValue<UInt64?>(nil)
    /// The degraded deadline's task, until readiness is decided.
    private let degradedDeadline = LockedValue<Task<Void, Never>?>(nil)
    /// Called after every step, for the client's observable status.
    let statusChanged = LockedValue<(@Sendable () -> Void)?>(nil)
    /// The calls in flight that cancellation abandoned, for the client's shutdown report.
    let abandoned = LockedValue<[ShutdownReport.Work]>([])

    /// Creates a lifecycle; it starts when ``run()`` is called.
    ///
    /// - Parameters:
    ///   - store: The store to fill.
    ///   - fetchService: Where the configuration comes from.
    ///   - configuration: How to load, refresh and become ready.
    init(
        store: CatalogConfigStore<Catalog>,
        fetchService: some ConfigFetching<Config>,
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
    /// it a second time returns at once. Cancelling the task returns promptly, whatever the fetch
    /// service and the cache do: a call in flight is abandoned and its result discarded.
    @concurrent
    func run() async {
        guard control.withLock({ $0.start() }) else { return }
        // The app's foreground and low-power notifications, where the platform has them, for as
        // long as the lifecycle runs: an SDK that runs its own lifecycle gets them too.
        let observers = AppLifecycleObservers { [weak self] event in self?.handle(event) }
        await run(on: configuration.timer)
        withExtendedLifetime(observers) {}
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
    ///   fetch goes on); ``ReadinessError/shutDown`` once the
    ///   lifecycle has been shut down, also for a refresh in flight then; the error that ended
    ///   readiness once a fetch error ended it (a ``FetchRetryAdvice`` with `endsReadiness`) and
    ///   so stopped the lifecycle.
    ///
    /// Before ``run()`` has started, a refresh waits for it.
    @discardableResult
    func refreshNow() async throws -> ConfigChange {
        let id = control.withLock { $0.makeRefreshID() }
        let result = await withTaskCancellationHandler {
            await withCheckedContinuation { (continuation: RefreshWaiter) in
                switch control.withLock({ $0.addRefreshWaiter(id, continuation) }) {
                case .resume(let result): continuation.resume(returning: result)
                case .wait(let loop): loop?.value.resume(returning: .fetch)
                }
            }
        } onCancel: {
            control.withLock { $0.cancelRefreshWaiter(id) }?.resume(returning: .failure(CancellationError()))
        }
        return try result.get()
    }

    /// Ends readiness with the SDK's own terminal error, and stops the lifecycle.
    ///
    /// Every current and later `waitForReady()` of the store throws `error`, and so does every
    /// refresh in flight or asked for later. Once the store is ready it does nothing: the last good
    /// configuration stays in use. ``CatalogClient/failReadiness(with:)`` calls it.
    ///
    /// - Parameter error: What every waiter throws.
    /// - Returns: Whether this call ended readiness.
    @discardableResult
    func failReadiness(with error: any Error) -> Bool {
        guard store.failReadiness(with: error, willFail: { report(.readinessFailed(error)) }) else { return false }
        stop(because: error)
        return true
    }

    /// Stops fetching for good, leaving the store and the bus as they are: ``CatalogClient/stopFetching()``.
    func stopFetching() {
        stop(because: CancellationError())
    }

    /// Stops the loop now: once its fetch in flight returns, it discards it; refreshes waiting for
    /// that fetch, and later ones, throw `reason`.
    private func stop(because reason: any Error) {
        let (loop, refreshes) = control.withLock { machine in
            if machine.stopReason == nil { machine.stopReason = reason }
            return (machine.cancelLoop(), machine.stop())
        }
        loop?.resume(returning: .stop)
        for refresh in refreshes.waiters { refresh.resume(returning: .failure(refreshes.error)) }
    }

    /// Pauses periodic refreshes and retries (once the SDK is ready), or resumes them.
    ///
    /// As low power mode does, independently of it. A refresh that fell due meanwhile runs as soon
    /// as both pauses end.
    func setRefreshPaused(_ paused: Bool) {
        let (changed, wake) = control.withLock { $0.setPausedBySDK(paused) }
        guard changed else { return }
        report(paused ? .refreshPaused : .refreshResumed)
        wake?.resume(returning: .fetch)
    }

    /// Tells the lifecycle about the app's state: from an app-lifecycle hook.
    ///
    /// Low power mode may be reported before ``run()`` starts (the client reports it as it is
    /// created, when it is on): it never holds the first fetch, the degraded deadline or a refresh
    /// asked for, only periodic refreshes and retries once the SDK is ready.
    ///
    /// - Parameter event: What happened.
    func handle(_ event: AppLifecycleEvent) {
        switch event {
        case .willEnterForeground:
            refreshIfStale(.foreground)
        case .lowPowerModeChanged(let isEnabled):
            let (changed, wake) = control.withLock { $0.setPaused(isEnabled) }
            guard changed else { return }
            report(isEnabled ? .refreshPaused : .refreshResumed)
            wake?.resume(returning: .fetch)
        }
    }

    /// Refreshes in the background when the configuration is older than
    /// ``LifecycleConfiguration/timeToLive``; does nothing otherwise, or without one.
    ///
    /// The client calls it when its configuration is read.
    func refreshIfStale() {
        refreshIfStale(.stale)
    }

    /// How many `refreshNow()` callers the lifecycle keeps track of: only those in flight.
    var refreshBookkeepingCount: Int { control.withLock { $0.refreshBookkeepingCount } }

    /// The state of the lifecycle, for diagnostics screens and logs.
    var currentStatus: SDKStatus {
        status.snapshot(readiness: store.readiness, isShutDown: store.isShutDown)
    }

    private func refreshIfStale(_ reason: LifecycleDiagnostic.RefreshReason) {
        guard let timeToLive = configuration.timeToLive else { return }
        let now = elapsedTime()
        switch control.withLock({ $0.triggerIfStale(timeToLive: timeToLive, now: now) }) {
        case .triggered(let wake):
            report(.refreshRequested(reason))
            wake?.value.resume(returning: .fetch)
        case .fresh(let age):
            // A read of the configuration happens all the time; a foreground visit is worth a line.
            if reason == .foreground { report(.refreshSkipped(age: age, timeToLive: timeToLive)) }
        case .notChecked:
            break
        }
    }

    /// Time on the lifecycle's clock since it started, in seconds; `nil` before.
    private func elapsedTime() -> TimeInterval? {
        guard let start = startedAt.withLock({ $0 }) else { return nil }
        let now = configuration.timer.nanoseconds
        return TimeUnits.seconds(inNanoseconds: now > start ? now - start : 0)
    }

    // MARK: The loop

    private func run(on clock: any TimerClock) async {
        let start = clock.nanoseconds
        startedAt.withLock { $0 = start }
        if case .degraded(let timeout?) = configuration.readinessPolicy.kind {
            // A task of its own, so that it can end as soon as readiness is decided (a sleeper
            // left on the clock would be the next deadline a test sees) and never outlives the run.
            // Low power mode never holds it.
            let store = self.store
            let deadlineTask = Task.inheritingExecutorPreference {
                guard (try? await clock.sleep(for: timeout)) != nil else { return }
                let error = ReadinessError.timedOut(after: timeout)
                _ = await store.setDegraded(because: error) { self.report(.degradedStart(error)) }
            }
            degradedDeadline.withLock { $0 = deadlineTask }
        }
        await loop(clock: clock)
        degradedDeadline.withLock { $0.take() }?.cancel()
    }

    /// Ends the degraded deadline's wait once readiness is decided.
    private func endDegradedDeadlineIfDecided() {
        guard store.isDecided else { return }
        degradedDeadline.withLock { $0.take() }?.cancel()
    }

    /// What the loop remembers of the configurations it applied and cached, so that an identical
    /// one is neither applied nor written again.
    private struct Memory {
        /// The body of the configuration last applied, when the service passes it on.
        var appliedBody: Data?
        /// The body of the configuration last cached, when the service passes it on.
        var cachedBody: Data?
        /// The configuration the cache holds: boxed, so that this state's layout does not depend
        /// on its type.
        var cached: Boxed<Config>?
    }

    private func loop(clock: any TimerClock) async {
        var memory = Memory(cached: await applyStartingConfigs())
        var failures = 0
        // The next fetch's deadline on the clock, in nanoseconds; `nil` waits for a demand.
        var nextFetch: UInt64? = clock.nanoseconds
        var hasFetched = false
        if !configuration.fetchesOnStart {
            // The SDK loads its first configuration: refresh from then on, or when asked.
            guard await waitForFirstConfig(clock: clock) else { return }
            hasFetched = true
        }
        while true {
            endDegradedDeadlineIfDecided()
            // Low power mode holds periodic refreshes and retries only once the SDK is ready: never
            // the first fetch, nor a retry that readiness waits for.
            let pausable = hasFetched && store.isDecided
            guard await waitForFetch(until: nextFetch, pausable: pausable, clock: clock) else { return }
            hasFetched = true
            report(.fetchStarted(attempt: failures + 1))
            let result = await fetch()
            guard !Task.isCancelled, !control.withLock({ $0.isLoopCancelled }) else {
                // Shut down, or readiness failed, during the fetch: whatever it returned is
                // discarded, never applied or recorded; a refresh waiting for it learns why the
                // lifecycle stopped.
                finishFetch(.failure(control.withLock { $0.stopError }))
                return
            }
            switch result {
            case .success(let (config, body)):
                // Its age counts from its arrival, recorded before it is applied: applying it
                // resumes `ready()` callers, who may read it (and move a test clock) at once.
                let fetchedAt = elapsedTime()
                control.withLock { $0.fetchArrived(at: fetchedAt) }
                let change = await apply(config, body: body, memory: &memory)
                failures = 0
                finishFetch(.success(change), succeededAt: fetchedAt)
                nextFetch = configuration.refreshInterval.map { clock.deadline(after: $0) }
                if let interval = configuration.refreshInterval { report(.refreshScheduled(in: interval)) }
            case .failure(let error):
                failures += 1
                guard let wait = await recover(from: error, failures: &failures) else { return }
                nextFetch = clock.deadline(after: wait)
            }
        }
    }

    /// Applies a fetched configuration, and caches it unless the cache holds it already.
    ///
    /// - Returns: What the store did with it.
    private func apply(_ config: Boxed<Config>, body: Data?, memory: inout Memory) async -> ConfigChange {
        let change: ConfigChange
        if let body, body == memory.appliedBody, store.config != nil {
            // The body as last applied: nothing can have changed, Equatable or not.
            change = .unchanged
            status.fetchSucceeded()
            status.applied(change, from: .live)
            report(.configApplied(change))
        } else {
            change = await store.setConfig(config, from: .live, fetchedAt: nil) { change in
                self.status.fetchSucceeded()
                self.status.applied(change, from: .live)
                // Readiness is decided: the degraded deadline stops now, before the step is
                // reported, not at the loop's next turn.
                self.endDegradedDeadlineIfDecided()
                self.report(.configApplied(change))
            }
        }
        if change != .ignored { memory.appliedBody = body }
        let isCached =
            (body != nil && body == memory.cachedBody)
            || (memory.cached.map { config.value.isSameConfiguration(as: $0.value) } ?? false)
        if change != .ignored, !isCached, await save(config, body: body) {
            (memory.cached, memory.cachedBody) = (config, body)
        }
        return change
    }

    /// Records a failed fetch, ends readiness when the error says so, resolves a degraded start
    /// when the policy allows one, and ends the fetch.
    ///
    /// - Returns: How long to wait before the next fetch; `nil` when the error ended readiness and
    ///   so the lifecycle.
    private func recover(from error: any Error, failures: inout Int) async -> TimeInterval? {
        status.fetchFailed(error)
        // An error that ends readiness ends the lifecycle only while readiness is undecided; once
        // the SDK is ready (from a cache, an initial or a degraded start) it is a failure like
        // another, and the last good configuration stays in use.
        if let advice = error as? any FetchRetryAdvice, advice.endsReadiness,
            store.failReadiness(with: error, willFail: { report(.readinessFailed(error)) })
        {
            control.withLock { $0.stopReason = error }
            finishFetch(.failure(error))
            return nil
        }
        let (wait, retryable) = retryDelay(after: error, failures: failures)
        report(.fetchFailed(error, attempt: failures, retryIn: wait))
        if configuration.readinessPolicy.resolvesDegraded, !store.isReady {
            _ = await store.setDegraded(because: error) { self.report(.degradedStart(error)) }
        }
        // A non-retryable error says nothing about the next one: back off from the start.
        if !retryable { failures = 0 }
        finishFetch(.failure(error))
        return wait
    }

    /// Waits until the next fetch is due (`deadline`, unless low power mode holds it) or asked for.
    ///
    /// - Returns: `false` when the task is cancelled.
    private func waitForFetch(until deadline: UInt64?, pausable: Bool, clock: any TimerClock) async -> Bool {
        let isDue = deadline.map { $0 <= clock.nanoseconds } ?? false
        let id = control.withLock { $0.beginWait(isDue: isDue, pausable: pausable) }
        guard let deadline, !isDue else { return await park() }
        return await withTaskGroup(of: Void.self) { group in
            group.addTask {
                guard (try? await clock.sleep(untilNanoseconds: deadline)) != nil else { return }
                self.deadlinePassed(id)
            }
            let fetch = await park()
            group.cancelAll()
            return fetch
        }
    }

    /// Waits, when the SDK loads its first configuration by itself, until the store is ready and a
    /// refresh interval has passed since (or for ever, without an interval), or until a refresh is
    /// asked for.
    ///
    /// - Returns: `false` when the task is cancelled.
    private func waitForFirstConfig(clock: any TimerClock) async -> Bool {
        // Only ever due once the SDK is ready: pausable, as a periodic refresh.
        let id = control.withLock { $0.beginWait(isDue: false, pausable: true) }
        return await withTaskGroup(of: Void.self) { group in
            let store = self.store
            let interval = configuration.refreshInterval
            group.addTask {
                guard (try? await store.waitForReady()) != nil, let interval,
                    (try? await clock.sleep(for: interval)) != nil
                else { return }
                self.deadlinePassed(id)
            }
            let fetch = await park()
            group.cancelAll()
            return fetch
        }
    }

    /// The deadline of wait `id` passed: wakes the loop to fetch, or reports that a pause holds it.
    private func deadlinePassed(_ id: UInt64) {
        let (wake, held) = control.withLock { $0.deadlinePassed(id) }
        if held { report(.refreshHeld) }
        wake?.resume(returning: .fetch)
    }

    /// Parks the loop until the state machine says to fetch or to stop; the decision and the
    /// parking are one locked step, so no wakeup is lost between them.
    ///
    /// - Returns: `false` when the task is cancelled.
    private func park() async -> Bool {
        let wake = await withTaskCancellationHandler {
            await withCheckedContinuation { (continuation: CheckedContinuation<LoopWake, Never>) in
                if let now = control.withLock({ $0.park(continuation) }) { continuation.resume(returning: now) }
            }
        } onCancel: {
            control.withLock { $0.cancelLoop() }?.resume(returning: .stop)
        }
        return wake == .fetch
    }

    /// Runs one fetch; abandons it (and returns `CancellationError`) when the task is cancelled,
    /// whether the fetch honours cancellation or not.
    ///
    /// The configuration comes boxed, so that the loop's generic code handles no value whose layout
    /// depends on its type.
    private func fetch() async -> Result<(Boxed<Config>, Data?), any Error> {
        let service = self.service
        let ending = await FirstResult.run { () async -> Result<(Boxed<Config>, Data?), any Error> in
            do {
                guard let bodyPassing = service as? any BodyPassingConfigFetching<Config> else {
                    return .success((Boxed(try await service.fetchLiveConfig()), nil))
                }
                let (config, body) = try await bodyPassing.fetchLiveConfigWithBody()
                return .success((Boxed(config), body))
            } catch {
                return .failure(error)
            }
        }
        guard case .finished(let result) = ending else {
            abandoned.withLock { $0.noteOnce(.fetch) }
            return .failure(CancellationError())
        }
        return result.value
    }

    /// Ends a fetch: records when a successful one arrived, and resumes the refreshes waiting for it.
    private func finishFetch(_ result: Result<ConfigChange, any Error>, succeededAt time: TimeInterval? = nil) {
        for waiter in control.withLock({ $0.finishFetch(succeededAt: time) }) { waiter.resume(returning: result) }
    }

    /// Applies the injected configuration, then the cached one, as the readiness policy allows.
    ///
    /// A corrupt cache is deleted, so that it is not read again at the next start.
    ///
    /// - Returns: The configuration the cache holds (boxed, for the loop's memory), so that an
    ///   unchanged one is not written again.
    private func applyStartingConfigs() async -> Boxed<Config>? {
        let usesStored = configuration.readinessPolicy.usesStoredConfigs
        if usesStored, let initial = configuration.initialConfigBox {
            _ = await store.setConfig(initial, from: .initial, fetchedAt: nil) { change in
                self.status.applied(change, from: .initial)
                self.report(.initialConfigApplied(change))
            }
        }
        guard let cache = configuration.cache else { return nil }
        // Boxed, so that the generic code here handles no value whose layout depends on the
        // configuration's type.
        let loaded = await FirstResult.run { () async -> Result<(Boxed<Config>, Date?)?, any Error> in
            do {
                guard let config = try await cache.load() else { return .success(nil) }
                return .success((Boxed(config), await cache.lastSaved))
            } catch {
                return .failure(error)
            }
        }
        guard case .finished(let result) = loaded else {
            abandoned.withLock { $0.noteOnce(.cache) }
            return nil
        }
        switch result.value {
        case .success(nil):
            return nil
        case .success(let (cached, savedAt)?):
            if usesStored {
                _ = await store.setConfig(cached, from: .cache, fetchedAt: savedAt) { change in
                    self.status.applied(change, from: .cache)
                    self.report(.cacheLoaded(change))
                }
            }
            return cached
        case .failure(let error):
            status.cacheFailed(error)
            report(.cacheRejected(error))
            // Not a valid configuration: it would be rejected again at every start. Unreadable: the
            // failure may pass (a protected file while the device is locked), so it stays.
            if error is JSONDecodingError { await clearCorruptCache(cache) }
            return nil
        }
    }

    /// Deletes a cache that holds something that is not a valid configuration, and says so.
    private func clearCorruptCache(_ cache: any ConfigCache<Config>) async {
        _ = await writeCache(reporting: .cacheCleared) { try await cache.clear() }
    }

    /// Writes a new configuration to the cache, if there is one: the body as served when the
    /// service passed it on, else the configuration's own encoding.
    ///
    /// The configuration comes boxed, so that the write's closure captures no value whose layout
    /// depends on its type.
    ///
    /// - Returns: Whether the cache now holds `config`.
    private func save(_ config: Boxed<Config>, body served: Data?) async -> Bool {
        guard let cache = configuration.cache else { return false }
        let body: Data
        do {
            body = try served ?? config.value.encodedForCache()
        } catch {
            report(.cacheWriteFailed(error))
            return false
        }
        return await writeCache(reporting: .cacheSaved) { try await cache.save(config.value, body: body) }
    }

    /// Runs a write to the cache (a save or a clear), abandoned when the task is cancelled, and
    /// reports how it ended: `success`, or the write's error.
    ///
    /// - Returns: Whether the write succeeded.
    private func writeCache(
        reporting success: LifecycleDiagnostic,
        _ write: @escaping @Sendable () async throws -> Void
    ) async -> Bool {
        let written = await FirstResult.run { () async -> (any Error)? in
            do {
                try await write()
                return nil
            } catch {
                return error
            }
        }
        guard case .finished(let error) = written else {
            abandoned.withLock { $0.noteOnce(.cache) }
            return false
        }
        if let error = error.value {
            report(.cacheWriteFailed(error))
            return false
        }
        report(success)
        return true
    }

    /// How long to wait after a failure, following the error's advice, and whether it advised
    /// retrying.
    private func retryDelay(after error: any Error, failures: Int) -> (TimeInterval, retryable: Bool) {
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

extension Optional {
    /// Takes the value out, leaving `nil`.
    fileprivate mutating func take() -> Wrapped? {
        defer { self = nil }
        return self
    }
}
