import Foundation

/// An SDK facade for any lifecycle catalogue: it loads the configuration when created, keeps it
/// fresh, and gives app code `ready()`, `on`/`off` and the current configuration.
///
/// Creating a client starts its ``ConfigLifecycle`` at once, in a task the client owns: initial
/// and cached configurations as the readiness policy allows, then fetch → decode → store → ready
/// event, then refreshes on ``LifecycleConfiguration/refreshInterval`` (and on demand) that
/// announce changed configurations. Failed fetches are retried with backoff; a malformed body is
/// rejected and the last good configuration stays.
///
/// ```swift
/// let (flags, emitter) = CatalogueClient<FlagEvent>.make(fetchService: flagService)
/// let readiness = try await flags.ready()
/// flags.on(.flagsChanged) { payload in … }
/// ```
///
/// App code holding the client cannot fire events. An SDK author fires its other events through
/// the emitter that ``make(configuration:fetchService:)`` returns. The built-in catalogue's client
/// is ``SDKClient``.
public final class CatalogueClient<Catalogue: LifecycleCatalogue>: Sendable {
    /// The configuration type.
    public typealias Config = Catalogue.Config

    /// The client's event bus, for subscriptions beyond ``on(_:callback:)``.
    public let bus: CatalogueBus<Catalogue>
    /// How the client loads, refreshes and becomes ready.
    public var configuration: LifecycleConfiguration<Config> { lifecycle.configuration }

    let lifecycle: ConfigLifecycle<Catalogue>
    var store: CatalogueConfigStore<Catalogue> { lifecycle.store }
    private let emitter: CatalogueEmitter<Catalogue>
    private let task: Task<Void, Never>
    private let observers: AppLifecycleObservers
    private let statusPublisher: StatusPublisher

    /// Creates a client and starts loading its configuration.
    ///
    /// - Parameters:
    ///   - configuration: How to load, refresh and become ready.
    ///   - fetchService: Where the configuration comes from.
    public convenience init(
        configuration: LifecycleConfiguration<Config> = LifecycleConfiguration(),
        fetchService: some ConfigFetchService<Config>
    ) {
        let (bus, emitter) = CatalogueBus<Catalogue>.makeBus()
        self.init(configuration: configuration, fetchService: fetchService, bus: bus, emitter: emitter)
    }

    /// Creates a client, starts loading its configuration, and hands the SDK author the capability
    /// to fire on its bus.
    ///
    /// Keep the emitter inside the SDK; give app code only the client.
    ///
    /// ```swift
    /// let (client, emitter) = SDKClient.make(fetchService: service)
    /// emitter.fire(.bucketing(BucketingPayload(experienceId: "e", variationId: "v", visitorId: "u")))
    /// ```
    ///
    /// - Parameters:
    ///   - configuration: How to load, refresh and become ready.
    ///   - fetchService: Where the configuration comes from.
    /// - Returns: The client, and the emitter that fires on its bus.
    public static func make(
        configuration: LifecycleConfiguration<Config> = LifecycleConfiguration(),
        fetchService: some ConfigFetchService<Config>
    ) -> (client: CatalogueClient, emitter: CatalogueEmitter<Catalogue>) {
        let (bus, emitter) = CatalogueBus<Catalogue>.makeBus()
        let client = CatalogueClient(
            configuration: configuration, fetchService: fetchService, bus: bus, emitter: emitter)
        return (client, emitter)
    }

    /// Creates a client on a bus the SDK made, and starts loading its configuration.
    ///
    /// For an SDK that needs its emitter before the client exists, for example to fire its own
    /// error event from the lifecycle's diagnostics. The client announces on the emitter's bus, so
    /// a client can never be given a bus and the emitter of another:
    ///
    /// ```swift
    /// let (_, emitter) = CatalogueBus<FlagEvent>.makeBus()
    /// var settings = LifecycleConfiguration<FlagSet>()
    /// settings.diagnostics = { step in
    ///     if let error = step.failure { emitter.fire(.error(FlagErrorPayload(message: "\(error)"))) }
    /// }
    /// let client = CatalogueClient(emitter: emitter, configuration: settings, fetchService: service)
    /// ```
    ///
    /// - Parameters:
    ///   - emitter: The emitter of the bus the client announces on and app code subscribes to.
    ///   - configuration: How to load, refresh and become ready.
    ///   - fetchService: Where the configuration comes from.
    public convenience init(
        emitter: CatalogueEmitter<Catalogue>,
        configuration: LifecycleConfiguration<Config> = LifecycleConfiguration(),
        fetchService: some ConfigFetchService<Config>
    ) {
        self.init(configuration: configuration, fetchService: fetchService, bus: emitter.bus, emitter: emitter)
    }

    private init(
        configuration: LifecycleConfiguration<Config>,
        fetchService: some ConfigFetchService<Config>,
        bus: CatalogueBus<Catalogue>,
        emitter: CatalogueEmitter<Catalogue>
    ) {
        let lifecycle = ConfigLifecycle(
            store: CatalogueConfigStore(emitter: emitter),
            fetchService: fetchService,
            configuration: configuration
        )
        self.bus = bus
        self.emitter = emitter
        self.lifecycle = lifecycle
        let statusPublisher = StatusPublisher { [weak lifecycle] in
            lifecycle?.currentStatus ?? SDKStatus(isReady: false, isShutDown: true, consecutiveFailures: 0)
        }
        lifecycle.statusChanged.withLock { $0 = { statusPublisher.statusChanged() } }
        self.statusPublisher = statusPublisher
        self.task = Task { await lifecycle.run() }
        self.observers = AppLifecycleObservers { [weak lifecycle] event in lifecycle?.handle(event) }
    }

    deinit {
        task.cancel()
        store.shutdown()
    }

    // MARK: Readiness

    /// Returns how the client became ready, once it is; at once if it already is.
    ///
    /// Every caller gets the same ``Readiness``. When it returns, ``config`` is set (unless the
    /// readiness policy started degraded). A failed fetch does not fail it: the SDK retries.
    ///
    /// - Returns: How the client became ready.
    /// - Throws: `CancellationError` when the calling task is cancelled (other callers keep
    ///   waiting); an error that ended readiness (``FetchRetryAdvice/endsReadiness``);
    ///   ``ReadinessError`` with code ``ReadinessError/Code/shutDown`` after ``shutdown()``.
    @discardableResult
    public func ready() async throws -> Readiness {
        try await store.waitForReady()
    }

    /// Returns how the client became ready, or throws when `timeout` passes first on `clock`.
    ///
    /// A timeout ends only this wait: the SDK keeps loading and a later ``ready()`` can succeed.
    ///
    /// ```swift
    /// try await sdk.ready(timeout: .seconds(2))                    // real time
    /// try await sdk.ready(timeout: .seconds(2), clock: testClock)  // the test advances it
    /// ```
    ///
    /// - Parameters:
    ///   - timeout: How long to wait.
    ///   - clock: The clock that measures `timeout`: real time unless you pass another.
    /// - Returns: How the client became ready.
    /// - Throws: ``ReadinessError`` with code ``ReadinessError/Code/timedOut`` when the deadline
    ///   passes first, and as ``ready()`` otherwise.
    @discardableResult
    public func ready<C: Clock>(timeout: Duration, clock: C = ContinuousClock()) async throws -> Readiness
    where C.Duration == Duration {
        try await store.waitForReady(timeout: timeout, clock: clock)
    }

    /// Returns once at least `count` callers are suspended in ``ready()``, or readiness is decided:
    /// a hook for tests, instead of polling.
    ///
    /// - Parameters:
    ///   - count: How many suspended callers to wait for.
    ///   - timeout: How long to wait at most, in real time.
    /// - Throws: ``WaitTimeoutError`` when fewer are suspended when the bound passes;
    ///   `CancellationError` when the task is cancelled first.
    public func waitForReadyWaiters(
        _ count: Int, within timeout: Duration = WaitTimeoutError.defaultTimeout
    ) async throws {
        try await store.waitForWaiters(count, within: timeout)
    }

    /// The configuration in effect, or `nil` before the first one.
    ///
    /// Reading it when the configuration is older than ``LifecycleConfiguration/timeToLive``
    /// starts a refresh in the background.
    public var config: Config? {
        lifecycle.refreshIfStale()
        return store.config
    }

    /// Whether the client is ready, how, where its configuration came from, when it last changed,
    /// and the last fetch error: for diagnostics screens and logs.
    ///
    /// Read at once, without waiting for the lifecycle: a status taken while a configuration is
    /// being applied can show its readiness a moment before its source and time. Use ``ready()``
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
    /// - Returns: What the store did with the configuration.
    /// - Throws: The fetch's error, `CancellationError`, or ``ReadinessError`` with code
    ///   ``ReadinessError/Code/shutDown`` after ``shutdown()``.
    @discardableResult
    public func refreshNow() async throws -> ConfigChange {
        try await lifecycle.refreshNow()
    }

    /// Tells the client about the app's state, from an app-lifecycle hook.
    ///
    /// On Apple platforms with UIKit the client observes the foreground and low-power
    /// notifications itself, and reports low power mode as it is created; call this from other
    /// hooks. Low power mode pauses periodic refreshes and retries once the client is ready, never
    /// its first fetch.
    ///
    /// - Parameter event: What happened.
    public func handle(_ event: AppLifecycleEvent) {
        lifecycle.handle(event)
    }

    // MARK: Subscriptions

    /// Subscribes `callback` to `event` on the main actor; see
    /// ``CatalogueBus/on(_:replayLatest:callback:)-(Catalogue,_,_)``.
    ///
    /// - Parameters:
    ///   - event: The event to listen to.
    ///   - callback: Called on the main actor with each payload of `event`.
    /// - Returns: The token that ends the subscription.
    public func on(
        _ event: Catalogue,
        callback: @escaping @MainActor @Sendable (Catalogue.Payload) -> Void
    ) -> EventListenerToken {
        bus.on(event, callback: callback)
    }

    /// Ends a subscription; see ``CatalogueBus/off(_:)``.
    ///
    /// - Parameter token: The token ``on(_:callback:)`` returned.
    public func off(_ token: EventListenerToken) async {
        await bus.off(token)
    }

    /// Ends a subscription synchronously, from any context; see ``CatalogueBus/cancel(_:)``.
    ///
    /// - Parameter token: The token ``on(_:callback:)`` returned.
    public func cancel(_ token: EventListenerToken) {
        bus.cancel(token)
    }

    // MARK: Shutdown

    /// How long ``shutdown()`` waits at most: 5 s.
    public static var defaultShutdownTimeout: Duration { .seconds(5) }

    /// Shuts the SDK down: stops fetching, fails every current and later ``ready()`` with
    /// ``ReadinessError/Code/shutDown``, delivers the events already fired, then ends every
    /// subscription.
    ///
    /// Returns once the lifecycle has stopped and the bus is shut down: event sequences have
    /// finished, callbacks are released, and later fires and subscriptions do nothing. The last
    /// configuration stays readable.
    ///
    /// It never waits without bound. A fetch or cache call in flight is abandoned at once, so
    /// neither the fetch service nor the cache holds it. Waiting for the lifecycle to stop and for
    /// the events fired before shutdown to be delivered ends after ``defaultShutdownTimeout`` on
    /// the configured ``LifecycleConfiguration/clock`` (``shutdown(timeout:)`` takes another), or
    /// when the calling task is cancelled: what had not finished then (an actor that is blocked and
    /// never runs its listeners' delivery, say) is abandoned, and its undelivered events are
    /// dropped. The report lists everything abandoned.
    ///
    /// ```swift
    /// let report = await sdk.shutdown()
    /// if !report.isComplete { logger.info("\(report)") }
    /// ```
    ///
    /// - Returns: What shutdown abandoned; usually nothing.
    @discardableResult
    public func shutdown() async -> ShutdownReport {
        await shutdown(timeout: Self.defaultShutdownTimeout)
    }

    /// Shuts the SDK down as ``shutdown()`` does, waiting at most `timeout` on the configured
    /// ``LifecycleConfiguration/clock``.
    ///
    /// - Parameter timeout: How long to wait at most for the lifecycle to stop and the events
    ///   already fired to be delivered.
    /// - Returns: What shutdown abandoned; usually nothing.
    @discardableResult
    public func shutdown(timeout: Duration) async -> ShutdownReport {
        task.cancel()
        store.shutdown()
        let late = await Self.drain(lifecycle: task, bus: bus, within: timeout, clock: configuration.clock)
        emitter.shutdown()
        statusPublisher.statusChanged()
        let inFlight = lifecycle.abandoned.withLock { $0 }
        let abandoned = [ShutdownReport.Work.fetch, .cache].filter(inFlight.contains) + late
        return ShutdownReport(abandoned: abandoned, timeout: timeout)
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
        bus: CatalogueBus<Catalogue>,
        within timeout: Duration,
        clock: any Clock<Duration>
    ) async -> [ShutdownReport.Work] {
        let finished = LockedValue<Set<ShutdownReport.Work>>([])
        _ = await FirstResult.run(timeout: timeout, clock: clock) {
            await withTaskGroup(of: Void.self) { group in
                group.addTask {
                    await lifecycle.value
                    finished.withLock { _ = $0.insert(.lifecycle) }
                }
                group.addTask {
                    await bus.flush()
                    // A flush ends early when the bound cancels it: then the delivery was abandoned.
                    if !Task.isCancelled { finished.withLock { _ = $0.insert(.delivery) } }
                }
            }
        }
        let done = finished.withLock { $0 }
        return [ShutdownReport.Work.lifecycle, .delivery].filter { !done.contains($0) }
    }
}

/// The built-in catalogue's SDK facade; see ``CatalogueClient``.
///
/// ```swift
/// let sdk = SDKClient(fetchService: MyCDNFetchService())
/// try await sdk.ready()                       // suspends until the first configuration is in
/// let token = sdk.on(.configUpdated) { payload in … }
/// print(sdk.config?.experiences.count ?? 0)
/// ```
public typealias SDKClient = CatalogueClient<SystemEvent>
