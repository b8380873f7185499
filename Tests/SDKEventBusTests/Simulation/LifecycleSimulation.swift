import Foundation
@_spi(Testing) import SDKEventBusConfig
import SDKEventBusCore
import SDKEventBusTesting

/// One simulated SDK: it composes the configuration half as its settings say, plays operations one
/// step at a time on the deterministic executor, and after each step checks what it saw against
/// ``LifecycleInvariants``; at the end it checks that nothing was left behind.
///
/// It drives the configuration half through its public API, its `@_spi(Testing)` hooks and its
/// diagnostics only, so that it runs unchanged on any lifecycle that keeps the promises. Every step
/// starts with the executor idle, performs its operation, and runs jobs until none is left; time
/// moves only when an operation moves it. Everything runs on the thread that calls ``play(_:next:)``:
/// a thread of its own, never a task of the cooperative pool.
@available(macOS 15, iOS 18, tvOS 18, watchOS 11, visionOS 2, *)
final class LifecycleSimulation: @unchecked Sendable {
    typealias Client = CatalogClient<SimulatedEvent>
    typealias Store = CatalogConfigStore<SimulatedEvent>

    /// A sequence that broke a promise.
    struct Failure: Error, CustomStringConvertible {
        let violation: Violation
        let settings: SimulationSettings
        /// The operations played, up to the one that broke it (all of them when the end did).
        let operations: [SimulationOperation]
        let atTheEnd: Bool
        /// What the failing step saw.
        let observations: [Observation]
        /// What the whole sequence saw.
        let trace: [Observation]

        var description: String {
            """
            \(violation)
            \(atTheEnd ? "at the end of" : "at step \(operations.count) of") the sequence:
            let settings = \(settings)
            let operations: [SimulationOperation] = [
            \(operations.map { "    \($0)," }.joined(separator: "\n"))
            ]
            what the failing step saw:
            \((LifecycleSimulation.showsWholeTrace ? trace : observations).map { "    \($0)" }.joined(separator: "\n"))
            """
        }
    }

    /// Whether a failure shows what every step saw (`SDKEVENTBUS_SIM_TRACE`), not only the last.
    static let showsWholeTrace = ProcessInfo.processInfo.environment["SDKEVENTBUS_SIM_TRACE"] != nil

    /// What a sequence did, for the figures.
    struct Figures {
        var steps = 0
        var jobs = 0
        var fetches = 0
    }

    /// Keeps the lifecycle's configuration company: it lives as long as the lifecycle does, so that
    /// the end can tell whether anything of the package still holds the lifecycle.
    private final class Sentinel: Sendable {}

    let settings: SimulationSettings
    let world: SimulatedWorld
    private(set) var invariants: LifecycleInvariants
    private var client: Client?
    private var store: Store?
    private weak var weakClient: Client?
    private weak var sentinel: Sentinel?
    private var waitingReady: [Int: Task<Void, Never>] = [:]
    private var waitingRefresh: [Int: Task<Void, Never>] = [:]
    private var lastCaller = 0
    private var cancelledCallers: Set<Int> = []
    private var traceMark = 0
    private(set) var played: [SimulationOperation] = []

    var model: LifecycleModel { invariants.model }

    private init(settings: SimulationSettings, tolerating tolerated: Set<Invariant>) {
        self.settings = settings
        world = SimulatedWorld(settings: settings)
        invariants = LifecycleInvariants(settings: settings, tolerating: tolerated)
    }

    /// Plays `settings` with the operations `next` hands out until it returns `nil`, then ends the
    /// SDK and checks that nothing was left behind.
    ///
    /// - Parameters:
    ///   - settings: The composition and its settings.
    ///   - tolerated: Invariants to count rather than fail on (a census of each bug on its own).
    ///   - next: The next operation, from the simulation as it stands; `nil` ends the sequence.
    /// - Returns: The figures, or the first broken promise.
    static func play(
        _ settings: SimulationSettings,
        tolerating tolerated: Set<Invariant> = [],
        next: (LifecycleSimulation) -> SimulationOperation?
    ) -> (Result<Figures, Failure>, tolerated: [Invariant: Int]) {
        let simulation = LifecycleSimulation(settings: settings, tolerating: tolerated)
        let result = simulation.run(next: next)
        return (result, simulation.invariants.toleratedHits)
    }

    /// Replays `operations` exactly.
    static func replay(
        _ settings: SimulationSettings, _ operations: [SimulationOperation], tolerating tolerated: Set<Invariant> = []
    ) -> Result<Figures, Failure> {
        var remaining = operations[...]
        return play(settings, tolerating: tolerated) { _ in remaining.popFirst() }.0
    }

    private func run(next: (LifecycleSimulation) -> SimulationOperation?) -> Result<Figures, Failure> {
        world.pumpThread = Thread.current
        world.announcementProbe = { [unowned self] in
            let start = world.executor.readyCount
            startReady(timeout: nil, probe: true)
            world.runNested(from: start)
        }
        do {
            try create()
            while let operation = next(self) {
                played.append(operation)
                try step(operation)
            }
        } catch let violation as Violation {
            return .failure(failure(violation, atTheEnd: false))
        } catch {
            preconditionFailure("\(error)")
        }
        do {
            try end()
        } catch let violation as Violation {
            return .failure(failure(violation, atTheEnd: true))
        } catch {
            preconditionFailure("\(error)")
        }
        return .success(Figures(steps: played.count, jobs: world.executor.jobCount, fetches: world.fetchCount))
    }

    private func failure(_ violation: Violation, atTheEnd: Bool) -> Failure {
        let trace = world.observations(since: 0)
        let start = trace.lastIndex { if case .operation = $0 { true } else { false } } ?? 0
        return Failure(
            violation: violation, settings: settings, operations: played, atTheEnd: atTheEnd,
            observations: Array(trace[start...]), trace: trace)
    }

    // MARK: Steps

    private func step(_ operation: SimulationOperation) throws {
        world.record(.operation(operation))
        perform(operation)
        try settle()
    }

    /// Runs the step's jobs until none is left, then checks what they did.
    private func settle() throws {
        guard world.runUntilIdle() else {
            throw Violation(invariant: .deterministic, detail: "the jobs of the step never ran out: a livelock")
        }
        let observations = world.observations(since: traceMark)
        traceMark += observations.count
        for observation in observations {
            try invariants.observe(observation)
            switch observation {
            case .readyReturned(let id, _): waitingReady[id] = nil
            case .refreshReturned(let id, _): waitingRefresh[id] = nil
            default: break
            }
        }
        try invariants.endStep(probe())
        if let escape = world.escapes.first { throw Violation(invariant: .deterministic, detail: escape) }
    }

    private func probe() -> StepProbe {
        StepProbe(
            clientAlive: weakClient != nil,
            storeIsReady: store?.isReady,
            storeIsDecided: store?.readinessWaiters.isDecided,
            storeVersion: store.map { store -> Int? in store.config?.version },
            callPending: world.pendingFetchCount > 0 || world.isCacheLoadPending)
    }

    /// Starts `body` as a task on the deterministic executor: the SDK's call.
    private func spawn(_ body: sending @escaping () async -> Void) {
        Task(executorPreference: world.executor, operation: body)
    }

    private func perform(_ operation: SimulationOperation) {
        let world = world
        switch operation {
        case .setConfig(let source, let age):
            guard let store else { return }
            let version = world.newVersion()
            world.record(.sdkSetConfig(version: version, source, age: age))
            let fetchedAt = age.map { Date(timeIntervalSinceNow: -$0) }
            spawn {
                let change = await store.setConfig(
                    SimulatedConfig(version: version), from: source, fetchedAt: fetchedAt)
                world.record(.setConfigReturned(change, version: version))
            }
        case .setSameConfig:
            guard let store, let version = model.version else { return }
            world.record(.sdkSetConfig(version: version, .live, age: nil))
            spawn {
                let change = await store.setConfig(SimulatedConfig(version: version))
                world.record(.setConfigReturned(change, version: version))
            }
        case .setDegraded:
            guard let store else { return }
            spawn { world.record(.setDegradedReturned(await store.setDegraded(because: CocoaError(.fileNoSuchFile)))) }
        case .failReadiness(let viaClient):
            let error = SimulatedSDKError(number: played.count)
            if viaClient, let client {
                spawn { world.record(.failReadinessReturned(client.failReadiness(with: error))) }
            } else if !viaClient, let store {
                spawn { world.record(.failReadinessReturned(store.failReadiness(with: error))) }
            }
        case .ready(let callers, let timeout):
            for _ in 0..<callers { startReady(timeout: timeout, probe: false) }
        case .cancelReady(let index):
            cancel(&waitingReady, index, isRefresh: false)
        case .refreshNow(let callers):
            guard let client else { return }
            for _ in 0..<callers {
                lastCaller += 1
                let id = lastCaller
                world.record(.refreshCalled(id))
                waitingRefresh[id] = Task(executorPreference: world.executor) {
                    do {
                        world.record(.refreshReturned(id, .success(try await client.refreshNow())))
                    } catch {
                        world.record(.refreshReturned(id, .failure(error)))
                    }
                }
            }
        case .cancelRefresh(let index):
            cancel(&waitingRefresh, index, isRefresh: true)
        case .pauseRefreshing:
            guard let client else { return }
            spawn { client.pauseRefreshing() }
        case .resumeRefreshing:
            guard let client else { return }
            spawn { client.resumeRefreshing() }
        case .lowPowerMode(let isEnabled):
            guard let client else { return }
            spawn { client.handle(.lowPowerModeChanged(isEnabled: isEnabled)) }
        case .foreground:
            guard let client else { return }
            spawn { client.handle(.willEnterForeground) }
        case .readConfig(let times):
            if let client {
                spawn { for _ in 0..<times { world.record(.configRead(version: client.config?.version)) } }
            } else if let store {
                spawn { for _ in 0..<times { world.record(.configRead(version: store.config?.version)) } }
            }
        case .stopFetching:
            guard let client else { return }
            spawn { client.stopFetching() }
        case .shutdown:
            if let client {
                spawn {
                    _ = await client.shutdown()
                    world.record(.shutdownReturned)
                }
            } else if let store {
                spawn { store.shutdown() }
            }
        case .drop:
            client = nil
        case .advance(let interval):
            moveClock(to: world.testClock.now + interval)
        case .advanceToNextDeadline(let early):
            // Just past the deadline, so that no rounding to nanoseconds leaves it unreached; or
            // a millisecond before it, where nothing due then may start.
            guard let deadline = model.nextDeadline else { return }
            moveClock(to: early ? deadline - 0.001 : deadline + 1e-7)
        case .answerFetch(let index, let answer):
            world.answerFetch(index, answer, current: model.version)
        case .answerCacheLoad:
            world.answerCacheLoad()
        }
    }

    private func moveClock(to instant: TimeInterval) {
        guard instant > world.testClock.now else { return }
        world.advance(to: instant)
        world.record(.clockMoved(to: world.testClock.now))
    }

    private func startReady(timeout: TimeInterval?, probe: Bool) {
        lastCaller += 1
        let id = lastCaller
        let clock = world.lifecycleClock
        let wait: @Sendable () async throws -> Readiness
        // Through the client and through the SDK's store by turns, where the SDK keeps one.
        if let client, store == nil || id.isMultiple(of: 2) {
            wait = { try await client.ready(timeout: timeout, clock: clock) }
        } else if let store {
            wait = { try await store.waitForReady(timeout: timeout, clock: clock) }
        } else {
            return
        }
        let world = world
        world.record(.readyCalled(id, timeout: timeout, probe: probe))
        waitingReady[id] = Task(executorPreference: world.executor) {
            do {
                world.record(.readyReturned(id, .success(try await wait())))
            } catch {
                world.record(.readyReturned(id, .failure(error)))
            }
        }
    }

    /// Cancels the task of the n-th caller still waiting that was not cancelled yet.
    private func cancel(_ tasks: inout [Int: Task<Void, Never>], _ index: Int, isRefresh: Bool) {
        let ids = tasks.keys.filter { !cancelledCallers.contains($0) }.sorted()
        guard !ids.isEmpty else { return }
        let id = ids[index % ids.count]
        cancelledCallers.insert(id)
        world.record(.cancelled(id, isRefresh: isRefresh))
        tasks[id]?.cancel()
    }

    // MARK: The start and the end

    private func create() throws {
        let sentinel = Sentinel()
        self.sentinel = sentinel
        let world = world
        var configuration = LifecycleConfiguration<SimulatedConfig>(
            refreshInterval: settings.refreshInterval,
            retryPolicy: settings.retry.policy,
            readinessPolicy: settings.readinessPolicy,
            timeToLive: settings.timeToLive,
            diagnostics: { step in withExtendedLifetime(sentinel) { world.diagnose(step) } },
            cache: settings.cache == nil ? nil : SimulatedCache(world: world),
            initialConfig: settings.initialConfig ? SimulatedConfig(version: world.newVersion()) : nil)
        configuration.fetchesOnStart = settings.fetchesOnStart
        configuration.clock = world.lifecycleClock
        world.record(.created(initialVersion: configuration.initialConfig?.version))
        let fetch: @Sendable () async throws -> SimulatedConfig = { try await world.fetch() }
        let settings = settings
        spawn { [self] in
            // In one job: every listener is in place before the lifecycle's first job runs.
            switch settings.composition {
            case .wholeClient:
                client = Client.makeClient(configuration: configuration, fetch: fetch).client
            case .wholeClientOnService:
                client =
                    Client.makeClient(configuration: configuration, fetchService: SimulatedFetchService(world: world))
                    .client
            case .storeByHand, .clientOverSDKStore:
                let (bus, emitter) = CatalogBus<SimulatedEvent>.makeBus()
                subscribe(to: bus)
                let store = Store(emitter: emitter)
                self.store = store
                if settings.composition == .clientOverSDKStore {
                    client = Client(store: store, configuration: configuration, fetch: fetch)
                }
            }
            if let client, store == nil { subscribe(to: client.bus) }
            if settings.lowPowerAtLaunch { client?.handle(.lowPowerModeChanged(isEnabled: true)) }
            weakClient = client
        }
        try settle()
    }

    private func subscribe(to bus: CatalogBus<SimulatedEvent>) {
        let world = world
        for event in SimulatedEvent.allCases {
            bus.on(event, delivery: .immediate) { world.announce($0) }
        }
    }

    /// The SDK ends: it shuts its client down (unless it let go of it), every caller still waiting
    /// gives up, the service and the cache answer what they still owe, the SDK ends its store, and
    /// then nothing of the package may be left.
    private func end() throws {
        if client != nil { try step(.shutdown) }
        // Each once: a caller that ignores its cancellation is a broken promise, not a reason to
        // cancel it for ever.
        for _ in waitingReady.keys { try step(.cancelReady(0)) }
        for _ in waitingRefresh.keys { try step(.cancelRefresh(0)) }
        for _ in 0..<world.pendingFetchCount { try step(.answerFetch(0, .newConfig)) }
        if world.isCacheLoadPending { try step(.answerCacheLoad) }
        if store != nil { try step(.shutdown) }
        var leftovers: [String] = []
        if !model.readyCallers.isEmpty { leftovers.append("\(model.readyCallers.count) ready() caller(s)") }
        if !model.refreshCallers.isEmpty { leftovers.append("\(model.refreshCallers.count) refreshNow() caller(s)") }
        let waiters = (store?.readinessWaiters ?? client?.readinessWaiters)?.count ?? 0
        if waiters > 0 { leftovers.append("\(waiters) readiness waiter(s) in the store") }
        if world.testClock.sleeperCount > 0 {
            leftovers.append("\(world.testClock.sleeperCount) sleeper(s) on the clock")
        }
        try invariants.require(
            leftovers.isEmpty, .nothingLeftBehind, "left once everything ended: \(leftovers.joined(separator: ", "))")
        try invariants.endRun()
        // A sleep that ignores cancellation is abandoned, and returns when its time comes.
        world.advance(to: .greatestFiniteMagnitude)
        client = nil
        store = nil
        guard world.runUntilIdle() else {
            throw Violation(invariant: .deterministic, detail: "the jobs at the end never ran out: a livelock")
        }
        if settings.hasLifecycle {
            try invariants.require(
                sentinel == nil && weakClient == nil, .nothingLeftBehind,
                "the \(weakClient == nil ? "lifecycle" : "client") is still held once everything ended: a task or continuation of the package was left behind"
            )
        }
        if let escape = world.escapes.first { throw Violation(invariant: .deterministic, detail: escape) }
    }
}
