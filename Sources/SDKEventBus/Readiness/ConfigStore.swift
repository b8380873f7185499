/// Holds the SDK's configuration and the readiness gate that opens when the first one arrives.
///
/// The first ``setConfig(_:)`` makes the store ready: it fires ``SystemEvent/ready`` and then
/// resumes every ``waitForReady()`` caller. Later configurations fire
/// ``SystemEvent/configUpdated`` with the new snapshot, only when they differ from the current one.
///
/// ```swift
/// let (bus, emitter) = EventBus.makeBus()
/// let store = ConfigStore(emitter: emitter)
///
/// Task { try await store.waitForReady(); print(await store.config!) }
/// await store.setConfig(config)   // fires .ready, then resumes the waiter
/// ```
public actor ConfigStore {
    /// The configuration now in effect, or `nil` before the first one.
    ///
    /// Set before waiters resume, so it is readable as soon as ``waitForReady()`` returns.
    public private(set) var config: ProjectConfig?

    private nonisolated let gate = ReadinessGate()
    private nonisolated let fire: @Sendable (EventPayloadValue) -> Void

    /// Creates a store that fires its events through `emitter`.
    ///
    /// - Parameter emitter: The emitter of the bus the store announces ``SystemEvent/ready`` and
    ///   ``SystemEvent/configUpdated`` on.
    public init(emitter: EventEmitter) {
        fire = { emitter.fire($0) }
    }

    /// Creates a store that fires its events on `eventBus`, for components inside this package.
    ///
    /// Not public: a store made from a bus could fire on it, and app code holds the bus.
    package init(eventBus: EventBus) {
        fire = { eventBus.fire($0) }
    }

    /// Whether ``waitForReady()`` would return at once: the first configuration has arrived and the
    /// store has not been shut down.
    ///
    /// After ``shutDown()`` it is `false`, while ``config`` keeps the last configuration.
    public var isReady: Bool { gate.isOpen }

    /// Makes `newConfig` the configuration in effect and announces it.
    ///
    /// The first configuration fires ``SystemEvent/ready`` and then resumes every waiter. A later
    /// one fires ``SystemEvent/configUpdated`` with the snapshot when it differs from the current
    /// one, and nothing when it is equal. After ``shutDown()`` configurations are ignored.
    ///
    /// - Parameter newConfig: The configuration to apply.
    /// - Returns: What the store did with it.
    @discardableResult
    public func setConfig(_ newConfig: ProjectConfig) -> ConfigChange {
        guard !gate.isShutDown else { return .ignored }
        guard let current = config else {
            let opened = gate.open {
                config = newConfig
                fire(.ready(ReadyPayload()))
            }
            return opened ? .first : .ignored
        }
        guard current != newConfig else { return .unchanged }
        config = newConfig
        fire(.configUpdated(ConfigUpdatedPayload(snapshot: newConfig)))
        return .updated
    }

    /// Returns once the first configuration has arrived; at once if it already has.
    ///
    /// Suspends without blocking a thread. Cancelling the waiting task resumes it promptly with
    /// `CancellationError` and leaves other waiters waiting.
    ///
    /// - Throws: `CancellationError` when the task is cancelled first; ``ReadinessError`` with code
    ///   ``ReadinessError/Code/shutDown`` when the store is shut down first, or was already.
    public nonisolated func waitForReady() async throws {
        try await gate.wait()
    }

    /// Returns once the first configuration has arrived, or throws when `timeout` passes first.
    ///
    /// A timeout ends only this wait: the store stays as it was, and a later ``waitForReady()``
    /// can still succeed.
    ///
    /// - Parameters:
    ///   - timeout: How long to wait.
    ///   - clock: The clock that measures `timeout`; tests pass a manual one.
    /// - Throws: ``ReadinessError`` with code ``ReadinessError/Code/timedOut`` when the deadline
    ///   passes first, and as ``waitForReady()`` otherwise.
    public nonisolated func waitForReady<C: Clock>(
        timeout: Duration,
        clock: C = ContinuousClock()
    ) async throws where C.Duration == Duration {
        if gate.isOpen { return }
        try await withThrowingTaskGroup(of: Void.self) { group in
            group.addTask { try await self.gate.wait() }
            group.addTask {
                try await clock.sleep(for: timeout)
                throw ReadinessError.timedOut(after: timeout)
            }
            defer { group.cancelAll() }
            try await group.next()
        }
    }

    /// Shuts the store down: every waiter, and every later wait, fails with
    /// ``ReadinessError/Code/shutDown``; later configurations are ignored.
    ///
    /// Synchronous, so it can run from a `deinit`. The current configuration stays readable.
    public nonisolated func shutDown() {
        gate.shutDown()
    }

    /// Whether a wait would return at once, readable without awaiting the store.
    package nonisolated var isReadyNow: Bool { gate.isOpen }

    /// Whether the store was shut down, readable without awaiting the store.
    package nonisolated var isShutDownNow: Bool { gate.isShutDown }

    /// How many callers are waiting for readiness now, for diagnostics and tests.
    public nonisolated var waiterCount: Int { gate.waiterCount }
}
