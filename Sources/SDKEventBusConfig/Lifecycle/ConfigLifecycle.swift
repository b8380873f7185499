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
    /// Every decision: the shell below only performs what it returns.
    let control: LockedValue<Machine>
    /// The one timer the machine arms: its generation and task.
    ///
    /// A timer is never awaited, so a clock that ignores cancellation keeps only its own sleeper,
    /// never the lifecycle.
    private let timer = LockedValue<(generation: UInt64, task: Task<Void, Never>?)>((0, nil))
    /// The task of the fetch in flight, which a stop abandons: the lifecycle waits for no fetch
    /// service once it stopped, whether the service honours cancellation or not.
    private let currentFetch = LockedValue<Task<Result<(Boxed<Config>, Data?), any Error>, Never>?>(nil)
    /// The degraded deadline's task, until readiness is decided.
    private let degradedDeadline = LockedValue<Task<Void, Never>?>(nil)
    /// The app-lifecycle notifications the lifecycle observes on
    /// ``LifecycleConfiguration/notificationCenter``: the platform's (tests pass another table).
    private let triggers: [AppLifecycleTrigger]
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
    ///   - triggers: The notifications to observe: the platform's.
    init(
        store: CatalogConfigStore<Catalog>,
        fetchService: some ConfigFetching<Config>,
        configuration: LifecycleConfiguration<Config> = LifecycleConfiguration(),
        triggers: [AppLifecycleTrigger] = AppLifecycleTrigger.platform
    ) {
        self.store = store
        self.triggers = triggers
        self.service = fetchService
        self.configuration = configuration
        self.control = LockedValue(Machine(settings: Machine.Settings(configuration)))
    }

    /// The time on the lifecycle's clock, in nanoseconds.
    private var now: UInt64 { configuration.timer.nanoseconds }

    // MARK: Running

    /// Runs the lifecycle until the calling task is cancelled, off the caller's actor.
    ///
    /// Without a refresh interval it fetches until the first success, then only on demand. Calling
    /// it a second time returns at once. Cancelling the task returns promptly, whatever the fetch
    /// service, the cache and the clock do: a call in flight is abandoned and its result discarded,
    /// and no timer is waited for.
    @concurrent
    func run() async {
        guard control.withLock({ $0.start() }) else { return }
        // The app's foreground and low-power notifications, where the platform has them and the
        // SDK did not turn them off, for as long as the lifecycle runs.
        let observers = configuration.notificationCenter.map { center in
            AppLifecycleObservers(center: center, triggers: triggers) { [weak self] event in self?.handle(event) }
        }
        // The store tells of every configuration, whoever sets it, and of readiness decided.
        let observation = store.observe { [weak self] change in self?.storeChanged(change) }
        startDegradedDeadline()
        // The initial and cached configurations load in a task of their own, so that a refresh
        // asked for meanwhile waits for no cache; the schedule begins once they are applied.
        let starting = Task.inheritingExecutorPreference { await self.applyStartingConfigs() }
        while await nextFetch() {
            guard await fetchAndApply() else { break }
        }
        starting.cancel()
        withExtendedLifetime(observers) {}
        store.stopObserving(observation)
        degradedDeadline.withLock { $0.take() }?.cancel()
        perform(control.withLock { $0.stop(because: nil) })
        cancelTimer(upTo: .max)
        report(.stopped)
    }

    /// Fetches now, or joins the fetch already in flight, and returns what it did.
    ///
    /// A refresh asked for always runs: paused or not, in low power mode, during a backoff, before
    /// the lifecycle's first fetch (as soon as it runs) and after.
    ///
    /// - Returns: What the store did with the configuration.
    /// - Throws: The fetch's error; `CancellationError` when the calling task is cancelled (the
    ///   fetch goes on), or after ``stopFetching()``; ``ReadinessError/shutDown`` once the
    ///   lifecycle has been shut down, also for a refresh in flight then; the error that ended
    ///   readiness once it ended it and so stopped the lifecycle.
    @discardableResult
    func refreshNow() async throws -> ConfigChange {
        let id = control.withLock { $0.makeRefreshID() }
        let result = await withTaskCancellationHandler {
            await withCheckedContinuation { (continuation: RefreshWaiter) in
                perform(control.withLock { $0.addRefreshWaiter(id, continuation, now: now) })
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
        // The store tells the lifecycle, which stops with the error (`storeChanged`).
        store.failReadiness(with: error, willFail: { report(.readinessFailed(error)) })
    }

    /// Stops fetching for good, leaving the store and the bus as they are: ``CatalogClient/stopFetching()``.
    func stopFetching() {
        perform(control.withLock { $0.stop(because: CancellationError()) })
    }

    /// Pauses periodic refreshes and retries (once the SDK is ready), or resumes them.
    ///
    /// As low power mode does, independently of it. A refresh that fell due meanwhile runs as soon
    /// as both pauses end.
    func setRefreshPaused(_ paused: Bool) {
        perform(control.withLock { $0.setPausedBySDK(paused, now: now) })
    }

    /// Tells the lifecycle about the app's state: from an app-lifecycle hook.
    ///
    /// Low power mode may be reported before ``run()`` starts (the client reports it as it is
    /// created, when it is on): it never holds the first fetch, the degraded deadline or a refresh
    /// asked for, only periodic refreshes, requests and retries once the SDK is ready.
    ///
    /// - Parameter event: What happened.
    func handle(_ event: AppLifecycleEvent) {
        switch event {
        case .willEnterForeground:
            perform(control.withLock { $0.requestIfStale(.foreground, now: now) })
        case .lowPowerModeChanged(let isEnabled):
            perform(control.withLock { $0.setLowPower(isEnabled, now: now) })
        }
    }

    /// Asks for a refresh when the configuration is older than ``LifecycleConfiguration/timeToLive``;
    /// does nothing otherwise, or without one.
    ///
    /// The client calls it when its configuration is read. A request is not a fetch: requests
    /// coalesce, and the backoff, the pauses and the 100 ms floor apply to them.
    func refreshIfStale() {
        guard configuration.timeToLive != nil else { return }
        perform(control.withLock { $0.requestIfStale(.stale, now: now) })
    }

    /// How many `refreshNow()` callers the lifecycle keeps track of: only those in flight.
    var refreshBookkeepingCount: Int { control.withLock { $0.refreshBookkeepingCount } }

    /// The state of the lifecycle, for diagnostics screens and logs.
    var currentStatus: SDKStatus {
        status.snapshot(readiness: store.readiness, isShutDown: store.isShutDown)
    }

    // MARK: Performing

    /// Does what the machine decided, in order, outside its lock.
    private func perform(_ actions: [Machine.Action]) {
        for action in actions {
            switch action {
            case .report(let step):
                report(step)
            case .wakeLoop(let loop, let wake):
                loop.value.resume(returning: wake)
            case .resume(let waiters, let result):
                for waiter in waiters.value { waiter.resume(returning: result) }
            case .setTimer(let generation, let deadline):
                setTimer(generation, deadline: deadline)
            case .cancelTimer(let generation):
                cancelTimer(upTo: generation)
            case .abandonFetch:
                currentFetch.withLock { $0 }?.cancel()
            }
        }
    }

    /// Arms the timer: a task that sleeps until `deadline` and tells the machine, never awaited.
    ///
    /// Actions performed on two threads may arrive out of order: the latest generation wins, and a
    /// timer of an earlier one is cancelled at once.
    private func setTimer(_ generation: UInt64, deadline: UInt64) {
        let clock = configuration.timer
        let task = Task.inheritingExecutorPreference { [weak self] in
            guard (try? await clock.sleep(untilNanoseconds: deadline)) != nil, let self else { return }
            perform(control.withLock { $0.timerFired(generation, now: now) })
        }
        let replaced = timer.withLock { timer -> Task<Void, Never>? in
            guard generation > timer.generation else { return task }
            defer { timer = (generation, task) }
            return timer.task
        }
        replaced?.cancel()
    }

    /// Cancels the timer of `generation` or earlier.
    private func cancelTimer(upTo generation: UInt64) {
        timer.withLock { timer -> Task<Void, Never>? in
            guard generation >= timer.generation else { return nil }
            defer { timer = (generation, nil) }
            return timer.task
        }?.cancel()
    }

    /// What the store told: a configuration committed (its age counts, whoever set it), readiness
    /// decided (pauses hold from now on; a lifecycle that waits for the SDK's first configuration
    /// schedules its refresh), or readiness ended (the lifecycle stops).
    private func storeChanged(_ change: StoreChange) {
        switch change {
        case .committed(let change, let age):
            perform(control.withLock { $0.configCommitted(change, age: age, now: now) })
        case .ready:
            degradedDeadline.withLock { $0.take() }?.cancel()
            perform(control.withLock { $0.readinessDecided(isReady: true, now: now) })
        case .failed(let error):
            degradedDeadline.withLock { $0.take() }?.cancel()
            perform(control.withLock { $0.readinessDecided(isReady: false, now: now) + $0.stop(because: error) })
        case .shutDown:
            perform(control.withLock { $0.stop(because: nil) })
        }
    }

    // MARK: The loop

    /// Parks the loop until the machine says to fetch or to stop.
    ///
    /// - Returns: `false` when it stops: the task was cancelled, or the lifecycle stopped.
    private func nextFetch() async -> Bool {
        let wake = await withTaskCancellationHandler {
            await withCheckedContinuation { (continuation: CheckedContinuation<LoopWake, Never>) in
                perform(control.withLock { $0.park(continuation, now: now) })
            }
        } onCancel: {
            perform(control.withLock { $0.stop(because: nil) })
        }
        return wake == .fetch
    }

    /// Starts the degraded deadline, when the readiness policy has one.
    ///
    /// A task of its own, which ends as soon as readiness is decided (a sleeper left on the clock
    /// would be the next deadline a test sees) and never outlives the run. No pause holds it.
    private func startDegradedDeadline() {
        guard case .degraded(let timeout?) = configuration.readinessPolicy.kind, !store.isDecided else { return }
        let (store, clock) = (self.store, configuration.timer)
        let task = Task.inheritingExecutorPreference {
            guard (try? await clock.sleep(for: timeout)) != nil else { return }
            let error = ReadinessError.timedOut(after: timeout)
            _ = await store.setDegraded(because: error) { self.report(.degradedStart(error)) }
        }
        degradedDeadline.withLock { $0 = task }
        // Decided meanwhile: the store told before the task was kept.
        if store.isDecided { degradedDeadline.withLock { $0.take() }?.cancel() }
    }

    /// Shared by the loop and the task that loads the starting configurations (which records what the
    /// cache holds); each reads and writes it between awaits, never across one.
    private let memory = LockedValue(Memory())

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

    /// Runs the fetch the machine began, and applies what it returned.
    ///
    /// - Returns: `false` when the lifecycle stopped meanwhile, or the fetch's error ended
    ///   readiness: the loop ends.
    private func fetchAndApply() async -> Bool {
        // In a task of its own, which a stop cancels (`abandonFetch`); stored before the stop is
        // read, so that either the stop finds it or this finds the stop.
        let fetching = Task.inheritingExecutorPreference { await self.fetch() }
        currentFetch.withLock { $0 = fetching }
        if control.withLock({ $0.isStopped }) { fetching.cancel() }
        let result = await withTaskCancellationHandler {
            await fetching.value
        } onCancel: {
            fetching.cancel()
        }
        currentFetch.withLock { $0 = nil }
        guard !Task.isCancelled, !control.withLock({ $0.isStopped }) else {
            // Shut down, stopped, or readiness failed, during the fetch: whatever it returned is
            // discarded, never applied or recorded; the refreshes waiting for it learnt why.
            return false
        }
        switch result {
        case .success(let (config, body)):
            // Its age counts from its arrival, recorded before it is applied: applying it resumes
            // `ready()` callers, who may read it (and move a test clock) at once.
            control.withLock { $0.fetchArrived(now: now) }
            let change = await apply(config, body: body)
            perform(control.withLock { $0.fetchSucceeded(change, now: now) })
            return true
        case .failure(let error):
            status.fetchFailed(error)
            // An error that ends readiness ends the lifecycle only while readiness is undecided
            // (the store then tells the lifecycle, which stops); once the SDK is ready it is a
            // failure like another, and the last good configuration stays in use.
            if let advice = error as? any FetchRetryAdvice, advice.endsReadiness,
                store.failReadiness(with: error, willFail: { report(.readinessFailed(error)) })
            {
                return false
            }
            let random = Double.random(in: 0..<1)
            perform(control.withLock { $0.fetchFailed(error, random: random, now: now) })
            if configuration.readinessPolicy.resolvesDegraded, !store.isReady {
                _ = await store.setDegraded(because: error) { self.report(.degradedStart(error)) }
            }
            perform(control.withLock { $0.fetchFailedEnded(error, now: now) })
            return true
        }
    }

    /// Applies a fetched configuration, and caches it unless the cache holds it already.
    ///
    /// - Returns: What the store did with it.
    private func apply(_ config: Boxed<Config>, body: Data?) async -> ConfigChange {
        let change: ConfigChange
        if let body, body == memory.withLock({ $0.appliedBody }), store.config != nil {
            // The body as last applied: nothing can have changed, Equatable or not.
            change = .unchanged
            status.fetchSucceeded()
            status.applied(change, from: .live)
            report(.configApplied(change))
        } else {
            change = await store.setConfig(config, from: .live, fetchedAt: nil) { change in
                self.status.fetchSucceeded()
                self.status.applied(change, from: .live)
                self.report(.configApplied(change))
            }
        }
        guard change != .ignored else { return change }
        let isCached = memory.withLock { memory in
            memory.appliedBody = body
            return (body != nil && body == memory.cachedBody)
                || (memory.cached.map { config.value.isSameConfiguration(as: $0.value) } ?? false)
        }
        if !isCached, await save(config, body: body) {
            memory.withLock { ($0.cached, $0.cachedBody) = (config, body) }
        }
        return change
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

    /// Applies the starting configurations, remembers what the cache holds, and begins the schedule.
    private func applyStartingConfigs() async {
        let cached = await loadStartingConfigs()
        // What the cache holds, unless the loop has cached a newer one meanwhile.
        memory.withLock { memory in
            if memory.cached == nil { memory.cached = cached }
        }
        let (isReady, isDecided) = (store.isReady, store.isDecided)
        // A configuration the store held before the lifecycle observed it ages from its own fetch;
        // one committed since was observed with its age then, which a later reading must not reset.
        let age = store.configAge
        perform(
            control.withLock { machine in
                var actions: [Machine.Action] = []
                if let age, machine.configTime == .none {
                    actions = machine.configCommitted(.first, age: age.isFinite ? age : nil, now: now)
                }
                return actions + machine.startingConfigsApplied(isReady: isReady, isDecided: isDecided, now: now)
            })
    }

    /// Applies the initial configuration, then the cached one, as the readiness policy allows; a
    /// cached one never replaces a live one applied meanwhile (a refresh asked for while the cache
    /// loaded).
    ///
    /// A corrupt cache is deleted, so that it is not read again at the next start.
    ///
    /// - Returns: The configuration the cache holds (boxed, for the loop's memory), so that an
    ///   unchanged one is not written again.
    private func loadStartingConfigs() async -> Boxed<Config>? {
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
                _ = await store.setConfig(cached, from: .cache, fetchedAt: savedAt, unlessLive: true) { change in
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

    private func report(_ step: LifecycleDiagnostic) {
        configuration.diagnostics?(step)
        // The one hook of the bus's timeline: it records the step if one records.
        step.record(on: store.emitter.storage)
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
