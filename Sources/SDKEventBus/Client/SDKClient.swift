/// The SDK facade: it loads the configuration when created, keeps it fresh, and gives app code
/// `ready()`, `on`/`off` and the current configuration.
///
/// Creating a client starts its lifecycle at once, in a task the client owns: fetch → decode →
/// store → ``SystemEvent/ready``, then a refresh on ``SDKConfiguration/refreshInterval`` that fires
/// ``SystemEvent/configUpdated`` when the configuration changed. Failed fetches are retried with
/// backoff; a malformed body is rejected and the last good configuration stays.
///
/// ```swift
/// let sdk = SDKClient(fetchService: MyCDNFetchService())
/// try await sdk.ready()                       // suspends until the first configuration is in
/// let token = sdk.on(.configUpdated) { payload in … }
/// print(await sdk.config?.experiences.count ?? 0)
/// ```
///
/// App code holding the client cannot fire events. An SDK author fires the other events
/// (``SystemEvent/bucketing``, ``SystemEvent/conversion``, …) through the emitter that
/// ``make(configuration:fetchService:)`` returns.
public final class SDKClient: Sendable {
    /// The client's event bus, for subscriptions beyond ``on(_:callback:)``.
    public let bus: EventBus
    /// How the client loads and refreshes its configuration.
    public let configuration: SDKConfiguration

    let store: ConfigStore
    private let emitter: EventEmitter
    private let statusRecorder = StatusRecorder()
    private let lifecycle: Task<Void, Never>

    /// Creates a client and starts loading its configuration.
    ///
    /// - Parameters:
    ///   - configuration: How to load and refresh the configuration.
    ///   - fetchService: Where the configuration comes from.
    public convenience init(configuration: SDKConfiguration = SDKConfiguration(), fetchService: any ConfigFetchService)
    {
        let (bus, emitter) = EventBus.makeBus()
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
    ///   - configuration: How to load and refresh the configuration.
    ///   - fetchService: Where the configuration comes from.
    /// - Returns: The client, and the emitter that fires on its bus.
    public static func make(
        configuration: SDKConfiguration = SDKConfiguration(),
        fetchService: any ConfigFetchService
    ) -> (client: SDKClient, emitter: EventEmitter) {
        let (bus, emitter) = EventBus.makeBus()
        let client = SDKClient(configuration: configuration, fetchService: fetchService, bus: bus, emitter: emitter)
        return (client, emitter)
    }

    private init(
        configuration: SDKConfiguration,
        fetchService: any ConfigFetchService,
        bus: EventBus,
        emitter: EventEmitter
    ) {
        let store = ConfigStore(emitter: emitter)
        let lifecycle = ConfigLifecycle(
            store: store,
            service: fetchService,
            configuration: configuration,
            status: statusRecorder
        )
        self.bus = bus
        self.configuration = configuration
        self.store = store
        self.emitter = emitter
        self.lifecycle = Task { await lifecycle.run() }
    }

    deinit {
        lifecycle.cancel()
        store.shutDown()
    }

    /// Returns once the first configuration is in; at once if it already is.
    ///
    /// When it returns, ``config`` is set. A failed fetch does not fail it: the SDK retries.
    ///
    /// - Throws: `CancellationError` when the calling task is cancelled (other callers keep
    ///   waiting); ``ReadinessError`` with code ``ReadinessError/Code/shutDown`` after ``shutdown()``.
    public func ready() async throws {
        try await store.waitForReady()
    }

    /// Returns once the first configuration is in, or throws when `timeout` passes first.
    ///
    /// A timeout ends only this wait: the SDK keeps loading and a later ``ready()`` can succeed.
    ///
    /// - Parameter timeout: How long to wait, on ``SDKConfiguration/clock``.
    /// - Throws: ``ReadinessError`` with code ``ReadinessError/Code/timedOut`` when the deadline
    ///   passes first, and as ``ready()`` otherwise.
    public func ready(timeout: Duration) async throws {
        try await store.waitForReady(timeout: timeout, clock: configuration.clock)
    }

    /// The configuration in effect, or `nil` before the first one.
    public var config: ProjectConfig? {
        get async { await store.config }
    }

    /// Whether the client is ready, where its configuration came from, when it last changed, and
    /// the last fetch error: for diagnostics screens and logs.
    ///
    /// Read at once, without waiting for the lifecycle: a status taken while a configuration is
    /// being applied can show its readiness a moment before its source and time (`isReady` with
    /// `source` still `nil`, say). Use ``ready()`` and the events to act on state; use this to show it.
    public var status: SDKStatus {
        statusRecorder.snapshot(isReady: store.isReadyNow, isShutDown: store.isShutDownNow)
    }

    /// Subscribes `callback` to `event`; see ``EventBus/on(_:callback:)``.
    ///
    /// - Parameters:
    ///   - event: The event to listen to.
    ///   - callback: Called on the main actor with each payload of `event`.
    /// - Returns: The token that ends the subscription.
    public func on(
        _ event: SystemEvent,
        callback: @escaping @MainActor @Sendable (EventPayloadValue) -> Void
    ) -> EventListenerToken {
        bus.on(event, callback: callback)
    }

    /// Ends a subscription; see ``EventBus/off(_:)``.
    ///
    /// - Parameter token: The token ``on(_:callback:)`` returned.
    public func off(_ token: EventListenerToken) async {
        await bus.off(token)
    }

    /// Ends a subscription synchronously, from any context; see ``EventBus/cancel(_:)``.
    ///
    /// - Parameter token: The token ``on(_:callback:)`` returned.
    public func cancel(_ token: EventListenerToken) {
        bus.cancel(token)
    }

    /// Shuts the SDK down: stops fetching, fails every current and later ``ready()`` with
    /// ``ReadinessError/Code/shutDown``, delivers the events already fired, then ends every
    /// subscription.
    ///
    /// Returns once the lifecycle has stopped and the bus is shut down: event sequences have
    /// finished, callbacks are released, and later fires and subscriptions do nothing. The last
    /// configuration stays readable.
    public func shutdown() async {
        lifecycle.cancel()
        store.shutDown()
        await lifecycle.value
        await bus.flush()
        emitter.shutdown()
    }
}
