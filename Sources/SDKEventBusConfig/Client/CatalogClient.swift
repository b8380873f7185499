public import Foundation

/// An SDK's client for any lifecycle catalog: it loads the configuration when created, keeps it
/// fresh, and holds both sides of the SDK's configuration: the controls the SDK keeps, and the
/// ``reader`` it hands app code.
///
/// Creating a client starts its lifecycle at once, in a task the client owns: initial
/// and cached configurations as the readiness policy allows, then fetch → decode → store → ready
/// event, then refreshes on ``LifecycleConfiguration/refreshInterval`` (and on demand) that
/// announce changed configurations. Failed fetches are retried with backoff; a malformed body is
/// rejected and the last good configuration stays.
///
/// ```swift
/// let (client, emitter) = CatalogClient<FlagEvent>.makeClient(fetchService: flagService)
/// let flags = client.reader                 // what app code holds
/// let readiness = try await flags.ready()
/// flags.on(.flagsChanged) { payload in … }
/// ```
///
/// The client is the SDK's, as the emitter is: keep it, and hand app code its ``reader``, a
/// ``CatalogReader`` that subscribes, waits, reads and refreshes, and nothing else. Besides what
/// the reader offers (every verb of ``/SDKEventBusCore/CatalogSubscribing``, ``ready(timeout:clock:)``,
/// ``config``, ``status``, ``refreshNow()``), the client has what only the SDK may call: ending
/// readiness with its own error (``failReadiness(with:)``), telling the lifecycle about the app
/// (``handle(_:)``), pausing and resuming refreshes, stopping fetching, and shutting down. Neither
/// the client nor the reader can fire: an SDK author fires its other events through the emitter that
/// ``makeClient(configuration:fetchService:)`` returns. Awaiting delivery is the bus's,
/// `client.bus.flush()`, so a facade around it keeps `flush()` for itself.
public final class CatalogClient<Catalog: LifecycleCatalog>: CatalogSubscribing {
    /// The client's event bus: every subscription the client offers is made on it.
    public let bus: CatalogBus<Catalog>
    /// How the client loads, refreshes and becomes ready.
    var configuration: LifecycleConfiguration<Catalog.Config> { lifecycle.configuration }

    let lifecycle: ConfigLifecycle<Catalog>
    var store: CatalogConfigStore<Catalog> { lifecycle.store }
    private let emitter: CatalogEmitter<Catalog>
    /// Whether the client made its store: only then does dropping the client end it.
    private let ownsStore: Bool
    private let task: Task<Void, Never>
    private let statusPublisher: StatusPublisher

    /// Creates a client and starts loading its configuration.
    ///
    /// - Parameters:
    ///   - configuration: How to load, refresh and become ready.
    ///   - fetchService: Where the configuration comes from.
    public convenience init(
        configuration: LifecycleConfiguration<Catalog.Config> = LifecycleConfiguration(),
        fetchService: some ConfigFetching<Catalog.Config>
    ) {
        let store = CatalogConfigStore(emitter: CatalogBus<Catalog>.makeBus().emitter)
        let lifecycle = ConfigLifecycle(store: store, fetchService: fetchService, configuration: configuration)
        self.init(lifecycle: lifecycle, emitter: store.emitter, ownsStore: true)
    }

    /// Creates a client, starts loading its configuration, and hands the SDK author the capability
    /// to fire on its bus.
    ///
    /// Keep the emitter and the client inside the SDK; give app code the client's ``reader``.
    ///
    /// ```swift
    /// let (client, emitter) = SDKClient.makeClient(fetchService: service)
    /// emitter.fire(.bucketing(BucketingPayload(experienceId: "e", variationId: "v", visitorId: "u")))
    /// let sdk = client.reader   // what app code holds
    /// ```
    ///
    /// - Parameters:
    ///   - configuration: How to load, refresh and become ready.
    ///   - fetchService: Where the configuration comes from.
    /// - Returns: The client, and the emitter that fires on its bus.
    public static func makeClient(
        configuration: LifecycleConfiguration<Catalog.Config> = LifecycleConfiguration(),
        fetchService: some ConfigFetching<Catalog.Config>
    ) -> (client: CatalogClient, emitter: CatalogEmitter<Catalog>) {
        let emitter = CatalogBus<Catalog>.makeBus().emitter
        let lifecycle = ConfigLifecycle(
            store: CatalogConfigStore(emitter: emitter), fetchService: fetchService, configuration: configuration)
        return (CatalogClient(lifecycle: lifecycle, emitter: emitter, ownsStore: true), emitter)
    }

    /// Creates a client that fetches with the SDK's own function, starts loading its
    /// configuration, and hands the SDK author the capability to fire on its bus.
    ///
    /// For an SDK that already has its networking: hand it the function, or a closure, that fetches
    /// and decodes the configuration. No type to declare, and no requirement name to clash with the
    /// SDK's own.
    ///
    /// The function returns a configuration or throws; `nil` has no meaning here. A provider that
    /// returns `nil` says in the closure what it means: throw an error that says why for a failure
    /// (the lifecycle retries it with backoff), or return the configuration in effect for "not
    /// modified" (the store finds it unchanged and counts its age from this fetch).
    ///
    /// ```swift
    /// let (client, emitter) = CatalogClient<FlagEvent>.makeClient(fetch: api.fetchFlags)
    /// let (other, _) = CatalogClient<FlagEvent>.makeClient(configuration: settings) {
    ///     try await FlagSet.decoded(from: try await api.get("/flags"))
    /// }
    /// ```
    ///
    /// - Parameters:
    ///   - configuration: How to load, refresh and become ready.
    ///   - fetch: Fetches and decodes the current configuration, as
    ///     ``ConfigFetching/fetchLiveConfig()`` does; called from the lifecycle's task.
    /// - Returns: The client, and the emitter that fires on its bus.
    public static func makeClient(
        configuration: LifecycleConfiguration<Catalog.Config> = LifecycleConfiguration(),
        fetch: @escaping @Sendable () async throws -> Catalog.Config
    ) -> (client: CatalogClient, emitter: CatalogEmitter<Catalog>) {
        makeClient(configuration: configuration, fetchService: ClosureConfigFetcher(fetch: fetch))
    }

    /// Creates a client that fills a store the SDK keeps and fetches with the SDK's own function, and
    /// starts loading its configuration.
    ///
    /// As ``init(store:configuration:fetchService:)``, with the function or closure that fetches and
    /// decodes the configuration.
    ///
    /// - Parameters:
    ///   - store: The store to fill; the SDK may set configurations on it too.
    ///   - configuration: How to load, refresh and become ready.
    ///   - fetch: Fetches and decodes the current configuration; called from the lifecycle's task.
    public convenience init(
        store: CatalogConfigStore<Catalog>,
        configuration: LifecycleConfiguration<Catalog.Config> = LifecycleConfiguration(),
        fetch: @escaping @Sendable () async throws -> Catalog.Config
    ) {
        self.init(store: store, configuration: configuration, fetchService: ClosureConfigFetcher(fetch: fetch))
    }

    /// Creates a client that fills a store the SDK keeps, and starts loading its configuration.
    ///
    /// For an SDK that also sets configurations it receives another way (pushed, say), or that needs
    /// its emitter before the client exists (to fire its own error event from the lifecycle's
    /// diagnostics, say), and still hands app code the client's ``reader``. The client announces on the bus of
    /// the store's emitter, so a client can never be given a bus and the emitter of another. Its
    /// ``shutdown(timeout:)`` shuts the store down; dropping the client only stops its lifecycle, and
    /// leaves the store as it is (ready, readable, taking the SDK's configurations), so that an SDK
    /// can replace its refresher. A configuration the SDK sets ages from its `fetchedAt`, as a
    /// fetched one does, for ``LifecycleConfiguration/timeToLive``.
    ///
    /// ```swift
    /// let (_, emitter) = CatalogBus<FlagEvent>.makeBus()
    /// var settings = LifecycleConfiguration<FlagSet>()
    /// settings.diagnostics = { step in
    ///     if case .fetchFailed(let error, _, _) = step {
    ///         emitter.fire(.error(FlagErrorPayload(message: "\(error)")))
    ///     }
    /// }
    /// let store = CatalogConfigStore(emitter: emitter)
    /// let client = CatalogClient(store: store, configuration: settings, fetchService: flagService)
    /// await store.setConfig(pushedFlags)   // the SDK keeps the store; app code has client.reader
    /// ```
    ///
    /// - Parameters:
    ///   - store: The store to fill; the SDK may set configurations on it too.
    ///   - configuration: How to load, refresh and become ready.
    ///   - fetchService: Where the configuration comes from.
    public convenience init(
        store: CatalogConfigStore<Catalog>,
        configuration: LifecycleConfiguration<Catalog.Config> = LifecycleConfiguration(),
        fetchService: some ConfigFetching<Catalog.Config>
    ) {
        let lifecycle = ConfigLifecycle(store: store, fetchService: fetchService, configuration: configuration)
        self.init(lifecycle: lifecycle, emitter: store.emitter, ownsStore: false)
    }

    private init(lifecycle: ConfigLifecycle<Catalog>, emitter: CatalogEmitter<Catalog>, ownsStore: Bool) {
        self.bus = emitter.bus
        self.emitter = emitter
        self.ownsStore = ownsStore
        self.lifecycle = lifecycle
        let statusPublisher = StatusPublisher { [weak lifecycle] in
            lifecycle?.currentStatus ?? SDKStatus(isReady: false, isShutDown: true, consecutiveFailures: 0)
        }
        lifecycle.statusChanged.withLock { $0 = { statusPublisher.statusChanged() } }
        self.statusPublisher = statusPublisher
        self.task = Task.inheritingExecutorPreference { await lifecycle.run() }
    }

    deinit {
        task.cancel()
        // Only the side that made the store ends it: a store the SDK keeps stays as it is, ready
        // and readable, for the SDK and for a client that replaces this one.
        if ownsStore { store.shutdown() }
    }

    // MARK: The app's side

    /// What app code holds: a value that subscribes, waits for readiness, reads the configuration and
    /// its status, and asks for a fresh one, and cannot end readiness, steer the lifecycle or fire.
    ///
    /// Keep the client, and the emitter, inside the SDK; hand app code the reader. Every reader of a
    /// client reads the same state, on the same bus. A reader does not keep the lifecycle running:
    /// when the SDK shuts the client down or lets it go, the reader's `ready()` and `refreshNow()`
    /// say so (``ReadinessError/shutDown``) and its `config` keeps the last configuration.
    public var reader: CatalogReader<Catalog> {
        CatalogReader(bus: bus, lifecycle: lifecycle, statusPublisher: statusPublisher)
    }

    // MARK: Readiness

    /// Returns how the client became ready, once it is; at once if it already is, and with a
    /// `timeout`, throws when it passes first.
    ///
    /// Every caller gets the same ``Readiness``. When it returns, ``config`` is set (unless the
    /// readiness policy started degraded). A failed fetch does not fail it: the SDK retries. A
    /// timeout ends only this wait: the SDK keeps loading and a later `ready()` can succeed.
    ///
    /// ```swift
    /// try await sdk.ready()
    /// try await sdk.ready(timeout: 2)                    // two seconds of real time
    /// try await sdk.ready(timeout: 2, clock: testClock)  // in tests (SDKEventBusTesting)
    /// ```
    ///
    /// - Parameters:
    ///   - timeout: How long to wait at most, in seconds; `nil` (the default) waits as long as it
    ///     takes. Zero, a negative number or `nan` waits not at all: a ready client returns, any
    ///     other throws at once.
    ///   - clock: The clock that measures `timeout`; `nil` (the default) is real time.
    /// - Returns: How the client became ready.
    /// - Throws: ``ReadinessError/timedOut(after:)`` when the deadline passes first;
    ///   `CancellationError` when the calling task is cancelled (other callers keep waiting); an
    ///   error that ended readiness (``FetchRetryAdvice/endsReadiness``, ``failReadiness(with:)``);
    ///   ``ReadinessError/shutDown`` after ``shutdown(timeout:)``.
    @discardableResult
    public func ready(timeout: TimeInterval? = nil, clock: (any LifecycleClock)? = nil) async throws -> Readiness {
        try await store.waitForReady(timeout: timeout, clock: clock)
    }

    /// The configuration in effect, or `nil` before the first one.
    ///
    /// Reading it is never a network request. When the configuration is older than
    /// ``LifecycleConfiguration/timeToLive`` a read *requests* a refresh: requests coalesce into one
    /// fetch, which runs when the schedule allows (not during a backoff, not while refreshing is
    /// paused, not sooner than 100 ms after the previous fetch), so reading it on every flag
    /// evaluation costs a lock and a clock reading, and never hammers the server.
    public var config: Catalog.Config? {
        // What is in effect when it is read; the refresh it may ask for comes after.
        let config = store.config
        lifecycle.refreshIfStale()
        return config
    }

    /// Whether the client is ready, how, where its configuration came from, when it last changed,
    /// and the last fetch error: for diagnostics screens and logs.
    ///
    /// Read at once, without waiting for the lifecycle: a status taken while a configuration is
    /// being applied can show its readiness a moment before its source and time. Use ``ready(timeout:clock:)``
    /// and the events to act on state; use this to show it.
    public var status: SDKStatus { lifecycle.currentStatus }

    #if canImport(Observation)
        /// The client's status as an observable model, for SwiftUI: it updates on the main actor
        /// shortly after each change of ``status``.
        @available(iOS 17, macOS 14, tvOS 17, watchOS 10, *)
        @MainActor
        public var observableStatus: ObservableSDKStatus { statusPublisher.model }
    #endif

    // MARK: Refresh

    /// Fetches the configuration now, or joins the fetch already in flight.
    ///
    /// It always runs and returns: paused or not, in low power mode, during a backoff, and before the
    /// lifecycle's first fetch (with ``LifecycleConfiguration/fetchesOnStart`` `false` too). It
    /// returns as soon as its fetch ends, whatever the clock does.
    ///
    /// - Returns: What the store did with the configuration.
    /// - Throws: The fetch's error; `CancellationError` when the calling task is cancelled (the
    ///   fetch goes on) or after ``stopFetching()``; the error that ended readiness; ``ReadinessError``
    ///   with code ``ReadinessError/shutDown`` after ``shutdown(timeout:)``, or once the client is
    ///   gone.
    @discardableResult
    public func refreshNow() async throws -> ConfigChange {
        try await lifecycle.refreshNow()
    }

    /// Tells the client about the app's state, from an app-lifecycle hook.
    ///
    /// On Apple platforms with UIKit the lifecycle observes the foreground and low-power
    /// notifications itself while it runs, and reports low power mode as it starts; call this from
    /// other hooks. Low power mode pauses periodic refreshes and retries once the client is ready, never
    /// its first fetch.
    ///
    /// The SDK's: the ``reader`` app code holds has no way to tell the lifecycle about the app, so
    /// only the SDK's hooks, or those it chooses to offer, reach it.
    ///
    /// - Parameter event: What happened.
    public func handle(_ event: AppLifecycleEvent) {
        lifecycle.handle(event)
    }

    // MARK: Controlling the lifecycle

    /// Pauses periodic refreshes and retries, until ``resumeRefreshing()``.
    ///
    /// As low power mode does, and independently of it: it holds only periodic refreshes and the
    /// retries of a client that is ready, never the first fetch, a retry that readiness waits for,
    /// or ``refreshNow()``. A refresh that falls due meanwhile is reported
    /// (``LifecycleDiagnostic/refreshHeld``) and runs as soon as the pause ends. Use it while the
    /// app has no use for fresh configurations (a background session, a metered network).
    ///
    /// The SDK's, as is ``resumeRefreshing()``: the ``reader`` app code holds cannot pause.
    public func pauseRefreshing() {
        lifecycle.setRefreshPaused(true)
    }

    /// Resumes the periodic refreshes and retries that ``pauseRefreshing()`` paused; one that fell
    /// due meanwhile runs at once.
    public func resumeRefreshing() {
        lifecycle.setRefreshPaused(false)
    }

    /// Stops fetching for good, and leaves the bus and the configuration as they are.
    ///
    /// No fetch, refresh or retry runs afterwards: a fetch in flight is discarded when it returns,
    /// and ``refreshNow()`` throws `CancellationError`. The bus keeps delivering, ``config`` keeps the
    /// last configuration, and a store the SDK keeps still takes the configurations it sets (a
    /// ``ready(timeout:clock:)`` caller then returns). For an SDK that takes the configuration over itself (from a
    /// push channel, say); ``shutdown(timeout:)`` ends everything.
    ///
    /// The SDK's: the ``reader`` app code holds cannot stop the lifecycle.
    public func stopFetching() {
        lifecycle.stopFetching()
    }

    // MARK: Ending readiness

    /// Ends readiness with the SDK's own terminal error: every current and later ``ready(timeout:clock:)`` throws
    /// `error`, and the lifecycle stops fetching.
    ///
    /// For an SDK that learns, outside the fetch service, that it can never become ready (its key
    /// was revoked, say). Once the client is ready it does nothing: the last good configuration stays
    /// in use. (A fetch error can end readiness too, through ``FetchRetryAdvice/endsReadiness``.)
    ///
    /// The SDK's, as the emitter is: the ``reader`` app code holds cannot end readiness.
    ///
    /// ```swift
    /// client.failReadiness(with: FlagSDKError.invalidKey)
    /// ```
    ///
    /// - Parameter error: What every waiter throws.
    /// - Returns: Whether this call ended readiness (`false` once ready, failed or shut down).
    @discardableResult
    public func failReadiness(with error: any Error) -> Bool {
        lifecycle.failReadiness(with: error)
    }

    // MARK: Shutdown

    /// Shuts the SDK down: stops fetching, fails every current and later ``ready(timeout:clock:)`` with
    /// ``ReadinessError/shutDown``, delivers the events already fired, then ends every
    /// subscription.
    ///
    /// Returns once the lifecycle has stopped and the bus is shut down: event sequences have
    /// finished, callbacks are released, and later fires and subscriptions do nothing. The last
    /// configuration stays readable, also through a ``reader``. The SDK's: a reader cannot shut
    /// the SDK down.
    ///
    /// It never waits without bound. A fetch or cache call in flight is abandoned at once, so
    /// neither the fetch service nor the cache holds it. Waiting for the lifecycle to stop and for
    /// the events fired before shutdown to be delivered ends after `timeout` on the lifecycle's
    /// clock (real time, unless ``LifecycleConfiguration/clock`` or a test clock says otherwise), or
    /// when the calling task is cancelled: what had not
    /// finished then (an actor that is blocked and never runs its listeners' delivery, say) is
    /// abandoned, and its undelivered events are dropped. The report lists everything abandoned.
    ///
    /// ```swift
    /// let report = await sdk.shutdown()
    /// if !report.isComplete { logger.info("\(report)") }
    /// ```
    ///
    /// - Parameter timeout: How long to wait at most, in seconds, for the lifecycle to stop and the
    ///   events already fired to be delivered: 5 seconds unless you say otherwise.
    /// - Returns: What shutdown abandoned; usually nothing.
    @discardableResult
    public func shutdown(timeout: TimeInterval = 5) async -> ShutdownReport {
        task.cancel()
        store.shutdown()
        let late = await Self.drain(lifecycle: task, bus: bus, within: timeout, clock: configuration.timer)
        emitter.shutdown()
        statusPublisher.statusChanged()
        let inFlight = lifecycle.abandoned.withLock { $0 }
        let abandoned = [ShutdownReport.Work.fetch, .cache].filter(inFlight.contains) + late
        return ShutdownReport(abandoned: abandoned)
    }

    /// Waits, within `timeout` on `clock`, for the lifecycle's task to end and for the bus to
    /// deliver what was fired before.
    ///
    /// Neither `Task.value` nor `flush()` has to honour cancellation: both run in a task that is
    /// abandoned when the time is up.
    ///
    /// - Returns: What had not finished in time, in the order shutdown waits for it.
    static func drain(
        lifecycle: Task<Void, Never>,
        bus: CatalogBus<Catalog>,
        within timeout: TimeInterval,
        clock: any TimerClock
    ) async -> [ShutdownReport.Work] {
        let finished = LockedValue<[ShutdownReport.Work]>([])
        _ = await FirstResult.run(timeout: timeout, clock: clock) {
            await withTaskGroup(of: Void.self) { group in
                group.addTask {
                    await lifecycle.value
                    finished.withLock { $0.noteOnce(.lifecycle) }
                }
                group.addTask {
                    await bus.flush()
                    // A flush ends early when the bound cancels it: then the delivery was abandoned.
                    if !Task.isCancelled { finished.withLock { $0.noteOnce(.delivery) } }
                }
            }
        }
        var done = finished.withLock { $0 }
        // A bound too short to let the flush run abandons nothing when nothing was left to deliver.
        if !done.contains(.delivery), bus.storage.isDelivered { done.append(.delivery) }
        return [ShutdownReport.Work.lifecycle, .delivery].filter { !done.contains($0) }
    }
}

// The test hooks of the testing library's `waitForReadyWaiters(_:within:)`: test SPI, which reads
// the store's waiters and changes nothing (the store itself, which can announce readiness, stays
// out of reach).
extension CatalogClient {
    /// How many callers wait in ``ready()`` now, and whether readiness is decided.
    ///
    /// Test SPI: `@_spi(Testing) import SDKEventBusConfig`.
    @_spi(Testing) public var readinessWaiters: ReadinessWaiters { store.readinessWaiters }

    /// The watcher of the callers waiting in ``ready()``, installed by the first call; see
    /// ``CatalogConfigStore/readinessWatcher(orInstall:)``.
    ///
    /// Test SPI: `@_spi(Testing) import SDKEventBusConfig`.
    ///
    /// - Parameter make: Makes the watcher, when none is installed yet.
    /// - Returns: The watcher installed.
    @_spi(Testing) public func readinessWatcher(
        orInstall make: () -> any ReadinessGateWatcher
    ) -> any ReadinessGateWatcher {
        store.readinessWatcher(orInstall: make)
    }
}
