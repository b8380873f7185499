public import Foundation

/// Holds an SDK's configuration and the readiness gate that opens when the first one arrives, and
/// announces both on the SDK's bus.
///
/// The first ``setConfig(_:from:fetchedAt:)`` makes the store ready: it commits the configuration,
/// fires the catalog's ready payload, then resumes every ``waitForReady(timeout:clock:)`` caller with the same
/// ``Readiness``. A later configuration that differs (one not `==` to the current one; every one,
/// for a configuration that is not `Equatable`) is committed and announced with the catalog's
/// "updated" payload; the same one changes nothing. The lifecycle can also resolve
/// readiness without a configuration (a degraded start), and the SDK can fail it for good with its
/// own error (``failReadiness(with:)``); whichever of these comes first decides what every caller
/// gets.
///
/// ```swift
/// let (bus, emitter) = CatalogBus<FlagEvent>.makeBus()
/// let store = CatalogConfigStore(emitter: emitter)
///
/// Task { let readiness = try await store.waitForReady(); print(readiness.source) }
/// await store.setConfig(flags)   // fires .initialized, then resumes the waiter
/// ```
///
/// The built-in catalog's store is `ConfigStore`.
public actor CatalogConfigStore<Catalog: LifecycleCatalog> {

    /// The configuration (boxed, so that this state's layout does not depend on its type and its
    /// value witnesses stay small).
    private struct State {
        var config: Boxed<Catalog.Config>?
        /// When the configuration in effect was fetched, as far as anyone knows: `nil` for one of
        /// unknown age (a bundled one).
        var fetchDate: Date?
        /// Where the configuration in effect came from.
        var source: ConfigSource?
    }

    private nonisolated let gate = ReadinessGate<Readiness>()
    private nonisolated let state = LockedValue(State())
    /// The lifecycles that fill the store, told of every change as it happens.
    private nonisolated let observers = LockedValue(StoreObservers())
    /// The emitter the store announces readiness and changes through.
    nonisolated let emitter: CatalogEmitter<Catalog>

    /// Creates a store that fires its events through `emitter`.
    ///
    /// - Parameter emitter: The emitter of the bus the store announces readiness and changes on.
    public init(emitter: CatalogEmitter<Catalog>) {
        self.emitter = emitter
    }

    // MARK: State

    /// The configuration in effect, or `nil` before the first one (and after a degraded start,
    /// until one arrives).
    ///
    /// Committed before the ready or updated event fires and before waiters resume, so it is
    /// readable as soon as ``waitForReady(timeout:clock:)`` returns.
    public nonisolated var config: Catalog.Config? { state.withLock { $0.config }?.value }

    /// Whether readiness was resolved and the store has not been shut down.
    ///
    /// `true` from the moment readiness is resolved, so a ready listener finds it; a
    /// ``waitForReady(timeout:clock:)`` then returns at once, or, while the ready event is still being fired, as
    /// soon as it has been.
    public nonisolated var isReady: Bool { gate.outcome != nil }

    /// How the store became ready, once it did (and until it is shut down).
    public nonisolated var readiness: Readiness? { gate.outcome }

    /// How old the configuration in effect is, in seconds, counted from when it was fetched, whoever
    /// set it: `nil` without a configuration, infinity when nobody knows when it was fetched.
    nonisolated var configAge: TimeInterval? {
        state.withLock { state in
            guard state.config != nil else { return nil }
            return state.fetchDate.map { max(0, Date().timeIntervalSince($0)) } ?? .infinity
        }
    }

    /// Whether the store was shut down, for the client's `SDKStatus.isShutDown`.
    nonisolated var isShutDown: Bool { gate.isShutDown }

    /// Whether readiness is decided: ready, failed or shut down.
    nonisolated var isDecided: Bool { !gate.isWaiting }

    /// How many callers wait for readiness now, and whether readiness is decided.
    ///
    /// Test SPI, for the testing library's `waitForReadyWaiters(_:within:)` and for tests that check no
    /// waiter is left behind: `@_spi(Testing) import SDKEventBusConfig`.
    @_spi(Testing) public nonisolated var readinessWaiters: ReadinessWaiters { gate.waiters }

    /// The watcher of the callers waiting for readiness, installed by the first call.
    ///
    /// Test SPI, the hook behind the testing library's `waitForReadyWaiters(_:within:)`: returns the
    /// watcher installed, or else installs the one `make` creates. The watcher is told, outside any
    /// lock, each time a caller has started waiting and once readiness is decided.
    ///
    /// - Parameter make: Makes the watcher, when none is installed yet.
    /// - Returns: The watcher installed.
    @_spi(Testing) public nonisolated func readinessWatcher(
        orInstall make: () -> any ReadinessGateWatcher
    ) -> any ReadinessGateWatcher {
        gate.watcher(orInstall: make)
    }

    // MARK: Changes

    /// Makes `newConfig` the configuration in effect and announces it.
    ///
    /// Before readiness, it commits the configuration, fires the ready payload and resumes every
    /// waiter. After, it commits and fires the updated payload when the configuration differs from
    /// the current one, and does nothing when it is equal. After a failure or ``shutdown()`` it is
    /// ignored.
    ///
    /// There is no way to clear the store: readiness is decided once, and a ready store keeps a
    /// configuration. To empty it, set an empty configuration of the SDK's type (announced as an
    /// update); to start over, shut the client or store down and make a new one.
    ///
    /// - Parameters:
    ///   - newConfig: The configuration to apply.
    ///   - source: Where it came from: ``ConfigSource/live`` (the default), ``ConfigSource/cache``
    ///     or ``ConfigSource/initial``.
    ///   - fetchedAt: When it was fetched or saved, for ``Readiness/configAge``; `nil` for a live
    ///     configuration means now.
    /// - Returns: What the store did with it.
    @discardableResult
    public func setConfig(_ newConfig: Catalog.Config, from source: ConfigSource = .live, fetchedAt: Date? = nil)
        -> ConfigChange
    {
        setConfig(newConfig, from: source, fetchedAt: fetchedAt) { _ in }
    }

    /// ``setConfig(_:from:fetchedAt:)``, calling `willAnnounce` with what it does once it has
    /// decided and committed, before it fires anything or resumes a waiter.
    ///
    /// The lifecycle records its status and reports its step there, so that a diagnostic comes
    /// before the events and the `ready()` returns that the step caused.
    func setConfig(
        _ newConfig: Catalog.Config,
        from source: ConfigSource,
        fetchedAt: Date?,
        willAnnounce: @Sendable (ConfigChange) -> Void
    ) -> ConfigChange {
        setConfig(Boxed(newConfig), from: source, fetchedAt: fetchedAt, willAnnounce: willAnnounce)
    }

    /// ``setConfig(_:from:fetchedAt:willAnnounce:)`` with the configuration in the box the store
    /// keeps it in: the lifecycle holds its configurations boxed, so none is copied on the way.
    ///
    /// With `unlessLive`, a configuration is ignored when the one in effect came from a live fetch:
    /// a cache that answers after the lifecycle (or the SDK) applied a live configuration cannot
    /// put an older one back. Checked on the actor, in the same step that applies.
    func setConfig(
        _ newConfig: Boxed<Catalog.Config>,
        from source: ConfigSource,
        fetchedAt: Date?,
        unlessLive: Bool = false,
        willAnnounce: @Sendable (ConfigChange) -> Void
    ) -> ConfigChange {
        let change =
            unlessLive && state.withLock({ $0.source == .live })
            ? .ignored : apply(newConfig, from: source, fetchedAt: fetchedAt, willAnnounce: willAnnounce)
        if change == .ignored || change == .unchanged { willAnnounce(change) }
        return change
    }

    /// Applies `newConfig`; calls `willAnnounce` only before an announcement.
    private func apply(
        _ newConfig: Boxed<Catalog.Config>,
        from source: ConfigSource,
        fetchedAt: Date?,
        willAnnounce: @Sendable (ConfigChange) -> Void
    ) -> ConfigChange {
        guard !gate.isShutDown else { return .ignored }
        let now = Date()
        // How old it is: from when it was fetched, whoever fetched it; a live one without a date is
        // new, any other without one of unknown age.
        let fetchDate = fetchedAt ?? (source == .live ? now : nil)
        let age = fetchDate.map { max(0, now.timeIntervalSince($0)) }
        if gate.isWaiting {
            let readiness = Readiness(source: Readiness.Source(source), configAge: age, date: now)
            // Commit first: a `waitForReady()` that arrives once the gate is open must find it.
            state.withLock { ($0.config, $0.fetchDate, $0.source) = (newConfig, fetchDate, source) }
            let opened = gate.open(readiness) {
                notifyObservers(.committed(.first, age: age))
                notifyObservers(.ready)
                willAnnounce(.first)
                emitter.fire(Catalog.readyPayload(readiness, config: newConfig.value))
            }
            guard opened else {
                // Failed or shut down meanwhile: the configuration was never in effect.
                state.withLock { ($0.config, $0.fetchDate, $0.source) = (nil, nil, nil) }
                return .ignored
            }
            return .first
        }
        guard gate.outcome != nil else { return .ignored }  // readiness failed for good
        // Boxes throughout, so that no configuration is copied here.
        let previous = state.withLock { state -> Boxed<Catalog.Config>? in
            defer { (state.config, state.source) = (newConfig, source) }
            return state.config
        }
        if let previous, newConfig.value.isSameConfiguration(as: previous.value) {
            // The same configuration, confirmed: its age counts from the fresher of the two fetches.
            state.withLock { state in
                if let date = fetchDate, state.fetchDate.map({ $0 < date }) ?? true { state.fetchDate = date }
            }
            notifyObservers(.committed(.unchanged, age: age))
            return .unchanged
        }
        state.withLock { $0.fetchDate = fetchDate }
        notifyObservers(.committed(.updated, age: age))
        willAnnounce(.updated)
        if let payload = Catalog.configUpdatedPayload(
            ConfigUpdate(boxedPrevious: previous, current: newConfig, source: source))
        {
            emitter.fire(payload)
        }
        return .updated
    }

    /// Declares the store ready without a configuration: a degraded start, so that an app never
    /// hangs at launch when the SDK has no configuration to give it.
    ///
    /// For an SDK that fetches and caches by itself: its first fetch failed and nothing is cached, or
    /// its bundled configuration did not decode. Fires the ready payload with
    /// ``Readiness/Source/degraded`` and resumes every waiter with a ``Readiness`` whose
    /// ``Readiness/error`` is `error`. A configuration set later is announced as an update.
    ///
    /// ```swift
    /// do {
    ///     await store.setConfig(try FlagSet.decode(from: bundledBody), from: .initial)
    /// } catch {
    ///     await store.setDegraded(because: error)   // ready() returns, degraded; the app uses defaults
    /// }
    /// ```
    ///
    /// - Parameter error: Why the SDK has no configuration (the failed fetch, a deadline).
    /// - Returns: Whether this call made the store ready (`false` when it was already ready, failed
    ///   or shut down).
    @discardableResult
    public func setDegraded(because error: any Error) -> Bool {
        setDegraded(because: error) {}
    }

    /// ``setDegraded(because:)``, calling `willAnnounce` once it resolved readiness, before it
    /// fires or resumes a waiter.
    func setDegraded(because error: any Error, willAnnounce: @Sendable () -> Void) -> Bool {
        let readiness = Readiness(source: .degraded, error: error)
        return gate.open(readiness) {
            notifyObservers(.ready)
            willAnnounce()
            emitter.fire(Catalog.readyPayload(readiness, config: nil))
        }
    }

    /// Fails readiness for good with the SDK's own error (an invalid SDK key, say): every current
    /// and later ``waitForReady(timeout:clock:)`` throws `error`, and later configurations are ignored.
    ///
    /// Has no effect once readiness was resolved: the first outcome stands.
    ///
    /// - Parameter error: The error every waiter throws.
    /// - Returns: Whether this call decided readiness.
    @discardableResult
    public nonisolated func failReadiness(with error: any Error) -> Bool {
        failReadiness(with: error) {}
    }

    /// ``failReadiness(with:)``, calling `willFail` once it decided readiness, before any waiter
    /// resumes.
    nonisolated func failReadiness(with error: any Error, willFail: () -> Void) -> Bool {
        gate.fail(error) {
            willFail()
            notifyObservers(.failed(error))
        }
    }

    // MARK: Waiting

    /// Returns how the store became ready, once it does; at once if it already has, and with a
    /// `timeout`, throws when it passes first.
    ///
    /// Suspends without blocking a thread. Every caller gets the same ``Readiness``. Cancelling the
    /// waiting task resumes it promptly with `CancellationError` and leaves other waiters waiting. A
    /// timeout ends only this wait: the store stays as it was, and a later wait can still succeed.
    ///
    /// ```swift
    /// let readiness = try await store.waitForReady()
    /// try await store.waitForReady(timeout: 2)                 // two seconds of real time
    /// try await store.waitForReady(timeout: 2, clock: clock)   // on a LifecycleClock of yours
    /// ```
    ///
    /// - Parameters:
    ///   - timeout: How long to wait at most, in seconds; `nil` (the default) waits as long as it
    ///     takes. Zero, a negative number or `nan` waits not at all.
    ///   - clock: The clock that measures `timeout`; `nil` (the default) is real time.
    /// - Returns: How the store became ready.
    /// - Throws: ``ReadinessError/timedOut(after:)`` when the deadline passes first;
    ///   `CancellationError` when the task is cancelled first; the error given to
    ///   ``failReadiness(with:)``; ``ReadinessError/shutDown`` when the store is shut down first, or
    ///   was already.
    @discardableResult
    public nonisolated func waitForReady(timeout: TimeInterval? = nil, clock: (any LifecycleClock)? = nil)
        async throws -> Readiness
    {
        guard let timeout else { return try await gate.wait() }
        return try await waitForReady(timeout: timeout, on: clock?.nanosecondTimer ?? SystemTimerClock())
    }

    /// Returns how the store became ready, or throws when `timeout` passes first on `timer`: what
    /// every timed wait for readiness runs.
    ///
    /// - Parameters:
    ///   - timeout: How long to wait, in seconds.
    ///   - timer: The clock that measures `timeout`.
    /// - Returns: How the store became ready.
    /// - Throws: ``ReadinessError/timedOut(after:)`` when the deadline passes first, and as
    ///   ``waitForReady(timeout:clock:)`` otherwise.
    nonisolated func waitForReady(timeout: TimeInterval, on timer: any TimerClock) async throws
        -> Readiness
    {
        // Decided already: that outcome, whatever the timeout, zero included.
        if let readiness = try gate.settledOutcome() { return readiness }
        // Raced in tasks of their own, never awaited once the race is decided: a clock that
        // ignores cancellation (a `DispatchQueue.asyncAfter` and a continuation) keeps its own
        // sleeper, not this caller, who returns as soon as readiness is decided.
        let gate = self.gate
        let ending = await FirstResult.run(timeout: max(timeout, 0), clock: timer) {
            () async -> Result<Readiness, any Error> in
            do { return .success(try await gate.wait()) } catch { return .failure(error) }
        }
        switch ending {
        case .finished(let result): return try result.value.get()
        case .cancelled: throw CancellationError()
        case .timedOut: throw ReadinessError.timedOut(after: timeout)
        }
    }

    // MARK: Shutdown

    /// Shuts the store down: every waiter, and every later wait, fails with
    /// ``ReadinessError/shutDown``; later configurations are ignored.
    ///
    /// Synchronous, so it can run from a `deinit`. The current configuration stays readable.
    public nonisolated func shutdown() {
        gate.shutDown()
        notifyObservers(.shutDown)
    }

    // MARK: Observers

    /// Tells `handler` of every change from now on, synchronously as it happens: before the event
    /// that announces it fires and before any waiter resumes.
    ///
    /// A lifecycle that fills the store observes it, so that a configuration the SDK sets ages as a
    /// fetched one does and readiness decided by the SDK starts its refreshes.
    ///
    /// - Parameter handler: Told of each change; keep it short, and let it not call back into the
    ///   store.
    /// - Returns: The id that ends the observation (``stopObserving(_:)``).
    nonisolated func observe(_ handler: @escaping @Sendable (StoreChange) -> Void) -> UInt64 {
        observers.withLock { $0.add(handler) }
    }

    /// Ends the observation `id`.
    nonisolated func stopObserving(_ id: UInt64) {
        observers.withLock { $0.remove(id) }
    }

    /// Tells every observer of `change`, outside the lock.
    private nonisolated func notifyObservers(_ change: StoreChange) {
        for handler in observers.withLock({ $0.handlers }) { handler(change) }
    }
}
