import SDKEventBusTesting
import Testing

@testable import SDKEventBus
@_spi(Testing) @testable import SDKEventBusConfig
@testable import SDKEventBusCore
@testable import SDKEventBusWire

@Suite(.timeLimit(.minutes(2))) @MainActor struct ConfigStoreTests {
    let bus: EventBus
    let store: ConfigStore
    let recorder: EventRecorder<SystemEvent>

    init() {
        let (bus, emitter) = EventBus.makeBus()
        self.bus = bus
        store = ConfigStore(emitter: emitter)
        recorder = EventRecorder(bus)
    }

    @Test func firstConfigFiresReadyAndMakesTheStoreReady() async {
        #expect(store.isReady == false)
        #expect(await store.setConfig(Fixtures.config(named: "A")) == .first)
        #expect(store.isReady)
        await bus.flush()
        #expect(recorder.events == [.ready])
    }

    /// Hands on every reading a store's readiness gate tells its watcher.
    final class ReadingRecorder: ReadinessGateWatcher {
        let (readings, continuation) = AsyncStream.makeStream(of: ReadinessWaiters.self)
        func waitersChanged(_ waiters: ReadinessWaiters) { continuation.yield(waiters) }
    }

    @Test func theWatcherIsToldEachWaiterAndTheDecisionWithTheReadingAfterIt() async throws {
        // Not with `waitForReadyWaiters`: the testing library's hook installs its own watcher.
        let watcher = ReadingRecorder()
        #expect(store.readinessWatcher { watcher } === watcher)
        #expect(store.readinessWatcher { ReadingRecorder() } === watcher, "the first watcher stays")
        var readings = watcher.readings.makeAsyncIterator()
        let store = self.store
        let waiter = Task { try await store.waitForReady() }
        #expect(await readings.next() == ReadinessWaiters(count: 1, isDecided: false))
        await store.setConfig(Fixtures.config(named: "A"))
        _ = try await waiter.value
        #expect(await readings.next() == ReadinessWaiters(count: 0, isDecided: true))
        #expect(store.readinessWaiters == ReadinessWaiters(count: 0, isDecided: true))
    }

    @Test func waiterResumesAfterReadyIsFiredAndCanReadTheConfig() async throws {
        let store = self.store
        let waiter = Task { @MainActor in
            try await store.waitForReady()
            return store.config
        }
        try await store.waitForReadyWaiters(1)
        await store.setConfig(Fixtures.config(named: "A"))
        #expect(try await waiter.value == Fixtures.config(named: "A"))
        await bus.flush()
        #expect(recorder.events == [.ready])
    }

    @Test func waitForReadyReturnsAtOnceWhenAlreadyReady() async throws {
        await store.setConfig(Fixtures.config(named: "A"))
        try await store.waitForReady()
        #expect(store.readinessWaiters.count == 0)
    }

    @Test func configUpdatedFiresOnlyWhenTheConfigChanged() async {
        let a = Fixtures.config(named: "A")
        let b = Fixtures.config(named: "B")
        var changes: [ConfigChange] = []
        for config in [a, a, b, b, a] {
            changes.append(await store.setConfig(config))
        }
        #expect(changes == [.first, .unchanged, .updated, .unchanged, .updated])
        await bus.flush()
        #expect(recorder.events == [.ready, .configUpdated, .configUpdated])
        #expect(
            recorder.payloads.last == .configUpdated(ConfigUpdatedPayload(snapshot: a, changes: .init(from: b, to: a))))
        #expect(store.config == a)
    }

    @Test func thousandConcurrentWaitersAreAllResumedExactlyOnce() async throws {
        let store = self.store
        let resumed = Counter()
        try await withThrowingTaskGroup(of: Void.self) { group in
            for _ in 0..<1_000 {
                group.addTask {
                    try await store.waitForReady()
                    resumed.increment()
                }
            }
            group.addTask { await store.setConfig(Fixtures.config(named: "A")) }
            try await group.waitForAll()
        }
        #expect(resumed.count == 1_000)
        #expect(store.readinessWaiters.count == 0)
    }

    @Test func halfOfTheWaitersCancelledWhileTheOtherHalfSucceed() async throws {
        let store = self.store
        let waiters = (0..<1_000).map { _ in
            Task { () -> Result<Void, any Error> in
                do {
                    try await store.waitForReady()
                    return .success(())
                } catch {
                    return .failure(error)
                }
            }
        }
        try await store.waitForReadyWaiters(1_000)
        for waiter in waiters[..<500] { waiter.cancel() }
        // Cancelled waiters resume promptly, before any configuration arrives.
        for waiter in waiters[..<500] {
            let result = await waiter.value
            #expect(throws: CancellationError.self) { try result.get() }
        }
        #expect(store.readinessWaiters.count == 500)
        await store.setConfig(Fixtures.config(named: "A"))
        for waiter in waiters[500...] {
            let result = await waiter.value
            #expect(throws: Never.self) { try result.get() }
        }
        #expect(store.readinessWaiters.count == 0)
    }

    @Test func taskCancelledBeforeWaitingThrowsCancellationAtOnce() async {
        let store = self.store
        let waiter = Task {
            withUnsafeCurrentTask { $0?.cancel() }
            try await store.waitForReady()
        }
        await #expect(throws: CancellationError.self) { try await waiter.value }
        #expect(store.readinessWaiters.count == 0)
    }

    @Test func timeoutThrowsATypedErrorAndALaterWaitSucceeds() async throws {
        let clock = TestClock()
        let store = self.store
        let timed = Task { try await store.waitForReady(timeout: 5, clock: clock) }
        #expect(try await clock.timeUntilNextDeadline() == 5)
        clock.advance(by: 5)
        do {
            _ = try await timed.value
            Issue.record("the wait did not time out")
        } catch let error as ReadinessError {
            #expect(error == .timedOut(after: 5))
        }
        #expect(store.readinessWaiters.count == 0, "the timed-out waiter is forgotten")
        #expect(store.isReady == false)

        let later = Task { try await store.waitForReady() }
        try await store.waitForReadyWaiters(1)
        await store.setConfig(Fixtures.config(named: "A"))
        _ = try await later.value
    }

    @Test func waitWithTimeoutReturnsWhenReadyFirst() async throws {
        let clock = TestClock()
        let store = self.store
        let timed = Task { try await store.waitForReady(timeout: 5, clock: clock) }
        _ = try await clock.timeUntilNextDeadline()
        await store.setConfig(Fixtures.config(named: "A"))
        _ = try await timed.value
        #expect(clock.sleeperCount == 0, "the timer was cancelled")
    }

    @Test func shutDownResumesEveryWaiterWithATypedError() async throws {
        let store = self.store
        let waiters = (0..<100).map { _ in Task { try await store.waitForReady() } }
        try await store.waitForReadyWaiters(100)
        store.shutdown()
        for waiter in waiters {
            await #expect(throws: ReadinessError.shutDown) { try await waiter.value }
        }
        #expect(store.readinessWaiters.count == 0)
    }

    @Test func waitAfterShutDownFailsAtOnceAndConfigsAreIgnored() async {
        store.shutdown()
        await #expect(throws: ReadinessError.shutDown) { try await store.waitForReady() }
        #expect(await store.setConfig(Fixtures.config(named: "A")) == .ignored)
        await bus.flush()
        #expect(recorder.events.isEmpty)
    }

    @Test func setConfigRacingWaitForReadyResumesEveryWaiter() async throws {
        for round in 0..<200 {
            let (_, emitter) = EventBus.makeBus()
            let store = ConfigStore(emitter: emitter)
            try await withThrowingTaskGroup(of: Void.self) { group in
                for _ in 0..<5 { group.addTask { try await store.waitForReady() } }
                group.addTask { await store.setConfig(Fixtures.config(named: "\(round)")) }
                for _ in 0..<5 { group.addTask { try await store.waitForReady() } }
                try await group.waitForAll()
            }
            #expect(store.readinessWaiters.count == 0)
        }
    }

    @Test func readyFiresExactlyOnceAcrossRacingFirstConfigs() async {
        let store = self.store
        let changes = await withTaskGroup(of: ConfigChange.self) { group in
            for index in 0..<100 {
                group.addTask { await store.setConfig(Fixtures.config(named: "\(index)")) }
            }
            var changes: [ConfigChange] = []
            for await change in group { changes.append(change) }
            return changes
        }
        #expect(changes.filter { $0 == .first }.count == 1)
        await bus.flush()
        #expect(recorder.events.filter { $0 == .ready }.count == 1)
        #expect(recorder.events.first == .ready)
        #expect(recorder.events.filter { $0 == .configUpdated }.count == changes.filter { $0 == .updated }.count)
    }
}
