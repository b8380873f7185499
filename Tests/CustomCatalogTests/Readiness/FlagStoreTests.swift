@_spi(Testing) import SDKEventBusConfig
import SDKEventBusTesting
import Testing

/// Readiness through `CatalogConfigStore<FlagEvent>`: the first flag set fires `initialized` and
/// resumes every waiter once with the same readiness; later sets fire `flags.changed` only when a
/// flag changed.
@Suite(.timeLimit(.minutes(2))) struct FlagStoreTests {
    let bus: FlagBus
    let store: FlagStore
    let recorder: EventRecorder<FlagEvent>

    init() {
        let (bus, emitter) = FlagBus.makeBus()
        self.bus = bus
        store = FlagStore(emitter: emitter)
        recorder = EventRecorder(bus, delivery: .immediate)
    }

    @Test func firstFlagSetFiresInitializedAndMakesTheStoreReady() async throws {
        #expect(store.isReady == false)
        #expect(await store.setConfig(FlagFixtures.flagSet) == .first)
        #expect(store.isReady)
        #expect(store.config == FlagFixtures.flagSet)
        #expect(recorder.payloads == [.initialized(InitializedPayload(source: .live, flagCount: 9))])
        #expect(store.readiness?.source == .live)
    }

    @Test func thousandConcurrentWaitersAreEachResumedOnceWithTheSameReadiness() async throws {
        let store = self.store
        let readinesses = try await withThrowingTaskGroup(of: Readiness.self) { group in
            for _ in 0..<1_000 {
                group.addTask { try await store.waitForReady() }
            }
            try await store.waitForReadyWaiters(1_000)
            await store.setConfig(FlagFixtures.flagSet, from: .cache)
            return try await group.reduce(into: []) { $0.append($1) }
        }
        #expect(readinesses.count == 1_000)
        let first = try #require(readinesses.first)
        #expect(first.source == .cache)
        #expect(
            readinesses.allSatisfy {
                $0.source == first.source && $0.date == first.date && $0.configAge == first.configAge
            })
        #expect(store.readinessWaiters.count == 0)
        #expect(recorder.events == [.initialized], "initialized fired once")
    }

    @Test func initializedIsFiredBeforeAnyWaiterResumesAndTheFlagsAreReadable() async throws {
        let store = self.store
        let recorder = self.recorder
        let waiter = Task {
            try await store.waitForReady()
            return (recorder.events, store.config)
        }
        try await store.waitForReadyWaiters(1)
        await store.setConfig(FlagFixtures.flagSet)
        let (events, config) = try await waiter.value
        #expect(events == [.initialized])
        #expect(config == FlagFixtures.flagSet)
    }

    @Test func waitForReadyReturnsAtOnceWhenAlreadyReady() async throws {
        await store.setConfig(FlagFixtures.flagSet)
        let readiness = try await store.waitForReady()
        #expect(readiness.source == store.readiness?.source)
        #expect(store.readinessWaiters.count == 0)
    }

    @Test func flagsChangedFiresOnlyWhenAFlagChanged() async throws {
        let (v1, v2) = (FlagFixtures.flagSet, FlagFixtures.secondVersion)
        var changes: [ConfigChange] = []
        for flags in [v1, v1, v2, v2, v1] { changes.append(await store.setConfig(flags)) }
        #expect(changes == [.first, .unchanged, .updated, .unchanged, .updated])
        let changed = FlagEventPayload.flagsChanged(FlagsChangedPayload(changedKeys: ["myBoolFlag"]))
        #expect(recorder.payloads == [.initialized(InitializedPayload(source: .live, flagCount: 9)), changed, changed])
        #expect(store.config == v1)
    }

    @Test func aSetThatChangesNoFlagIsTakenWithoutAnEvent() async throws {
        var renamed = FlagFixtures.flagSet
        renamed.schema = "https://flagd.dev/schema/v1/flags.json"
        renamed.metadata = ["version": .string("2")]
        await store.setConfig(FlagFixtures.flagSet)
        #expect(await store.setConfig(renamed) == .updated)
        #expect(store.config == renamed, "the new set is in effect")
        #expect(recorder.events == [.initialized], "but no flag changed, so nothing fired")
    }

    @Test func halfOfTheWaitersCancelledWhileTheOtherHalfSucceed() async throws {
        let store = self.store
        let waiters = (0..<1_000).map { _ in
            Task { () -> Result<Readiness, any Error> in
                do { return .success(try await store.waitForReady()) } catch { return .failure(error) }
            }
        }
        try await store.waitForReadyWaiters(1_000)
        for waiter in waiters[..<500] { waiter.cancel() }
        // Cancelled waiters resume promptly, before any flag set arrives.
        for waiter in waiters[..<500] {
            let result = await waiter.value
            #expect(throws: CancellationError.self) { try result.get() }
        }
        #expect(store.readinessWaiters.count == 500)
        await store.setConfig(FlagFixtures.flagSet)
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

    @Test func timeoutOnTheTestClockThrowsATypedErrorAndALaterWaitSucceeds() async throws {
        let clock = TestClock()
        let store = self.store
        let timed = Task { try await store.waitForReady(timeout: 5, clock: clock) }
        #expect(try await clock.advanceToNextDeadline() == 5)
        let error = await #expect(throws: ReadinessError.self) { try await timed.value }
        #expect(error == .timedOut(after: 5))
        #expect(store.isReady == false)
        #expect(store.readinessWaiters.count == 0, "the timed-out waiter is forgotten")

        let later = Task { try await store.waitForReady() }
        try await store.waitForReadyWaiters(1)
        await store.setConfig(FlagFixtures.flagSet)
        #expect(try await later.value.source == .live)
    }

    @Test func waitWithATimeoutReturnsWhenReadyComesFirstAndStopsItsTimer() async throws {
        let clock = TestClock()
        let store = self.store
        let timed = Task { try await store.waitForReady(timeout: 5, clock: clock) }
        try await clock.waitForSleepers(1)
        await store.setConfig(FlagFixtures.flagSet)
        #expect(try await timed.value.source == .live)
        #expect(clock.sleeperCount == 0, "the timer was cancelled")
    }

    @Test func shutdownResumesEveryWaiterWithATypedError() async throws {
        let store = self.store
        let waiters = (0..<100).map { _ in Task { try await store.waitForReady() } }
        try await store.waitForReadyWaiters(100)
        store.shutdown()
        for waiter in waiters {
            let error = await #expect(throws: ReadinessError.self) { try await waiter.value }
            #expect(error == .shutDown)
        }
        #expect(store.readinessWaiters.count == 0)
    }

    @Test func waitAfterShutdownFailsAtOnceAndFlagSetsAreIgnored() async {
        store.shutdown()
        let error = await #expect(throws: ReadinessError.self) { try await store.waitForReady() }
        #expect(error == .shutDown)
        #expect(await store.setConfig(FlagFixtures.flagSet) == .ignored)
        #expect(store.config == nil)
        #expect(recorder.payloads.isEmpty)
    }

    @Test func degradedStartAnnouncesInitializedWithoutFlagsAndTheFirstSetNamesEveryFlag() async throws {
        let error = ScriptedFlagService.SimulatedError("flag server unreachable")
        #expect(await store.setDegraded(because: error))
        #expect(try await store.waitForReady().source == .degraded)
        #expect(await store.setConfig(FlagFixtures.flagSet) == .updated)
        let keys = FlagFixtures.flagSet.flags.keys.sorted()
        #expect(
            recorder.payloads == [
                .initialized(InitializedPayload(source: .degraded, error: "flag server unreachable")),
                .flagsChanged(FlagsChangedPayload(changedKeys: keys)),
            ])
    }

    @Test func setConfigRacingWaitForReadyResumesEveryWaiter() async throws {
        for round in 0..<200 {
            let (_, emitter) = FlagBus.makeBus()
            let store = FlagStore(emitter: emitter)
            try await withThrowingTaskGroup(of: Void.self) { group in
                for _ in 0..<5 { group.addTask { try await store.waitForReady() } }
                group.addTask { await store.setConfig(FlagFixtures.flagSet(serving: "\(round)")) }
                for _ in 0..<5 { group.addTask { try await store.waitForReady() } }
                try await group.waitForAll()
            }
            #expect(store.readinessWaiters.count == 0)
        }
    }

    @Test func initializedFiresExactlyOnceAcrossRacingFirstSets() async {
        let store = self.store
        let changes = await withTaskGroup(of: ConfigChange.self) { group in
            for index in 0..<100 {
                group.addTask { await store.setConfig(FlagFixtures.flagSet(serving: "\(index)")) }
            }
            return await group.reduce(into: [ConfigChange]()) { $0.append($1) }
        }
        #expect(changes.filter { $0 == .first }.count == 1)
        #expect(recorder.events.first == .initialized)
        #expect(recorder.events.filter { $0 == .initialized }.count == 1)
        #expect(recorder.events.filter { $0 == .flagsChanged }.count == changes.filter { $0 == .updated }.count)
    }
}
