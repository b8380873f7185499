import Foundation
import SDKEventBusConfig
import SDKEventBusTesting
import Testing

/// The flag SDK's lifecycle through `CatalogClient<FlagEvent>` with a scripted fetch service, on
/// the test clock: the SDK drives the client, app code holds its reader (`FlagReader`).
@Suite(.timeLimit(.minutes(2))) struct FlagClientLifecycleTests {
    let harness = FlagHarness()
    var clock: TestClock { harness.clock }

    static let initializedLive = FlagEventPayload.initialized(InitializedPayload(source: .live, flagCount: 9))

    // MARK: Readiness

    @Test func clientBecomesReadyFromTheFirstFetchAndTheFlagsAreReadable() async throws {
        let (client, _, events) = harness.client(harness.service([.body(FlagFixtures.data)]))
        let flags: FlagReader = client.reader
        let readiness = try await flags.ready()
        #expect(readiness.source == .live)
        #expect(flags.config == FlagFixtures.flagSet)
        #expect(try await events.next() == [Self.initializedLive])
        #expect(flags.status.isReady)
        await client.shutdown()
    }

    @Test func thousandConcurrentReadyCallersGetTheSameReadinessOnce() async throws {
        let service = harness.service([.delayed(1, .body(FlagFixtures.data))])
        let (client, _, events) = harness.client(service)
        let flags = client.reader
        let clock = self.clock
        let readinesses = try await withThrowingTaskGroup(of: Readiness.self) { group in
            for _ in 0..<1_000 { group.addTask { try await flags.ready() } }
            try await clock.waitForSleepers(1)  // the first fetch waits for the test
            clock.advance(by: 1)
            return try await group.reduce(into: [Readiness]()) { $0.append($1) }
        }
        let first = try #require(readinesses.first)
        #expect(readinesses.count == 1_000)
        #expect(readinesses.allSatisfy { $0.source == .live && $0.date == first.date })
        #expect(events.payloads == [Self.initializedLive], "initialized fired once")
        await client.shutdown()
    }

    @Test func cancelledReadyCallerThrowsCancellationWhileOthersBecomeReady() async throws {
        let (client, _, _) = harness.client(harness.service([.delayed(1, .body(FlagFixtures.data))]))
        let cancelled = Task { try await client.ready() }
        let kept = Task { try await client.ready() }
        cancelled.cancel()
        await #expect(throws: CancellationError.self) { try await cancelled.value }
        try await clock.waitForSleepers(1)
        clock.advance(by: 1)
        #expect(try await kept.value.source == .live)
        await client.shutdown()
    }

    @Test func readyTimeoutOnTheTestClockThrowsAndALaterReadySucceeds() async throws {
        let (client, _, _) = harness.client(harness.service([.delayed(10, .body(FlagFixtures.data))]))
        let clock = self.clock
        let timed = Task { try await client.ready(timeout: 2, clock: clock) }
        try await clock.waitForSleepers(2)  // the fetch's 10 s and the caller's 2 s
        clock.advance(by: 2)
        let error = await #expect(throws: ReadinessError.self) { try await timed.value }
        #expect(error == .timedOut(after: 2))
        #expect(client.status.isReady == false, "the lifecycle keeps going")
        clock.advance(by: 8)
        #expect(try await client.ready().source == .live)
        #expect(client.config == FlagFixtures.flagSet)
        await client.shutdown()
    }

    @Test func degradedPolicyMakesTheClientReadyWithoutFlagsAndTheFirstSetNamesEveryFlag() async throws {
        let failure = ScriptedFlagService.SimulatedError("flag server unreachable")
        let service = harness.service([.failure(failure), .body(FlagFixtures.data)])
        let (client, _, events) = harness.client(
            service, configuration: harness.configuration(readinessPolicy: .degraded()))
        let readiness = try await client.ready()
        #expect(readiness.source == .degraded)
        #expect(client.config == nil)
        #expect(try await clock.advanceToNextDeadline() == 1, "retried with backoff")
        let keys = FlagFixtures.flagSet.flags.keys.sorted()
        #expect(
            try await events.next(2) == [
                .initialized(InitializedPayload(source: .degraded, error: "flag server unreachable")),
                .flagsChanged(FlagsChangedPayload(changedKeys: keys)),
            ])
        await client.shutdown()
    }

    @Test func clientBecomesReadyFromTheCacheThenAnnouncesTheLiveChange() async throws {
        let directory = FileManager.default.temporaryDirectory.appendingPathComponent("FlagClientCache-\(UUID())")
        defer { try? FileManager.default.removeItem(at: directory) }
        let cache = JSONFileConfigCache<FlagSet>(directory: directory)
        try cache.save(FlagFixtures.flagSet, body: JSONEncoder().encode(FlagFixtures.flagSet))
        let service = harness.service([.delayed(1, .body(FlagFixtures.secondVersionData))])
        let (client, _, events) = harness.client(service, configuration: harness.configuration(cache: cache))
        #expect(try await client.ready().source == .cache)
        #expect(client.config == FlagFixtures.flagSet)
        try await clock.waitForSleepers(1)
        clock.advance(by: 1)
        #expect(
            try await events.next(2) == [
                .initialized(InitializedPayload(source: .cache, flagCount: 9)),
                .flagsChanged(FlagsChangedPayload(changedKeys: ["myBoolFlag"])),
            ])
        try await harness.steps.wait("the changed flag set cached") {
            if case .cacheSaved = $0 { true } else { false }
        }
        #expect(try cache.load() == FlagFixtures.secondVersion, "the cache keeps the last good set")
        await client.shutdown()
    }

    // MARK: Refreshes

    @Test func refreshWithTheSecondVersionOfTheFixtureFiresFlagsChangedNamingExactlyTheChangedFlag() async throws {
        let service = harness.service([.body(FlagFixtures.data), .body(FlagFixtures.secondVersionData)])
        let (client, _, events) = harness.client(service)
        try await client.ready()
        #expect(try await clock.advanceToNextDeadline() == 60)
        #expect(
            try await events.next(2) == [
                Self.initializedLive, .flagsChanged(FlagsChangedPayload(changedKeys: ["myBoolFlag"])),
            ])
        #expect(client.config == FlagFixtures.secondVersion)
        #expect(client.config?.flags["myBoolFlag"]?.defaultValue == .bool(false))
        #expect(service.fetchCount == 2)
        await client.shutdown()
    }

    @Test func refreshWithTheSameFlagsFiresNothing() async throws {
        let service = harness.service([.body(FlagFixtures.data)], afterScript: nil)
        let (client, _, events) = harness.client(service)
        try await client.ready()
        for _ in 0..<2 { #expect(try await clock.advanceToNextDeadline() == 60) }
        try await harness.steps.wait(for: 2, "two unchanged refreshes") { $0.appliedChange == .unchanged }
        await client.bus.flush()
        #expect(events.payloads == [Self.initializedLive])
        await client.shutdown()
    }

    @Test func refreshOnDemandReportsWhatTheStoreDid() async throws {
        let service = harness.service([.body(FlagFixtures.data), .body(FlagFixtures.secondVersionData)])
        let (client, _, events) = harness.client(service, configuration: harness.configuration(refreshInterval: nil))
        let flags = client.reader
        try await flags.ready()
        #expect(try await flags.refreshNow() == .updated, "a pull to refresh is the app's")
        #expect(events.events == [.initialized, .flagsChanged])
        #expect(clock.history.isEmpty, "no refresh was scheduled")
        await client.shutdown()
    }

    // MARK: Malformed bodies

    @Test(arguments: MalformedFlagSet.corpus)
    func malformedBodyIsRejectedKeepingTheLastGoodFlagSetWithoutAnyEvent(_ malformed: MalformedFlagSet) async throws {
        let service = harness.service([.body(FlagFixtures.data), .body(malformed.body), .body(FlagFixtures.data)])
        let (client, _, events) = harness.client(service)
        try await client.ready()
        #expect(try await clock.advanceToNextDeadline() == 60)
        try await harness.steps.wait("a failed fetch") { $0.failure != nil }
        let error = try #require(harness.steps.steps.compactMap(\.failure).first as? JSONDecodingError)
        #expect(error.code == malformed.code)
        if let path = malformed.path { #expect(error.path == path) }
        #expect(client.config == FlagFixtures.flagSet, "the last good flag set stays")
        #expect(client.status.lastFetchError is JSONDecodingError)
        #expect(try await clock.advanceToNextDeadline() == 1, "the lifecycle goes on, with backoff")
        try await harness.steps.wait("an unchanged refresh") { $0.appliedChange == .unchanged }
        #expect(service.fetchCount == 3)
        await client.bus.flush()
        #expect(events.payloads == [Self.initializedLive], "a rejected body fires nothing")
        await client.shutdown()
    }

    @Test func malformedFirstBodyDoesNotMakeTheClientReady() async throws {
        let service = harness.service([.body(Data(#"{"flags":"#.utf8)), .body(FlagFixtures.data)])
        let (client, _, events) = harness.client(service)
        try await harness.steps.wait("a failed fetch") { $0.failure != nil }
        #expect(client.status.isReady == false)
        #expect(client.config == nil)
        #expect(events.payloads.isEmpty)
        #expect(try await clock.advanceToNextDeadline() == 1)
        #expect(try await client.ready().source == .live)
        #expect(client.config == FlagFixtures.flagSet)
        await client.shutdown()
    }

    // MARK: A store the SDK keeps

    @Test func aClientOnAStoreTheSDKKeepsIsReadyFromAConfigurationTheSDKSetAndAnnouncesOnThatBus() async throws {
        let (_, emitter) = FlagBus.makeBus()
        let store = FlagStore(emitter: emitter)
        let service = harness.service([.hang])
        let client = FlagClient(store: store, configuration: harness.configuration(), fetchService: service)
        let flags = client.reader
        let events = EventRecorder(flags.bus, delivery: .immediate)
        try await service.waitForFetches(1)  // the client runs the lifecycle on the SDK's store
        #expect(await store.setConfig(FlagFixtures.flagSet, from: .live) == .first)
        #expect(try await flags.ready().source == .live)
        #expect(flags.config == FlagFixtures.flagSet)
        #expect(try await events.next() == [Self.initializedLive])
        await client.shutdown()
        let later = await #expect(throws: ReadinessError.self) { try await store.waitForReady() }
        #expect(later == .shutDown, "the client's shutdown shuts the SDK's store down")
    }

    // MARK: Shutdown

    @Test func shutdownFailsWaitersAndLaterReadyWithATypedError() async throws {
        let service = harness.service([.hang])
        let (client, _, _) = harness.client(service)
        let flags = client.reader
        let waiters = (0..<10).map { _ in Task { try await flags.ready() } }
        try await service.waitForFetches(1)
        await client.shutdown()
        for waiter in waiters {
            let error = await #expect(throws: ReadinessError.self) { try await waiter.value }
            #expect(error == .shutDown)
        }
        let later = await #expect(throws: ReadinessError.self) { try await flags.ready() }
        #expect(later == .shutDown)
        let timed = await #expect(throws: ReadinessError.self) { try await flags.ready(timeout: 1) }
        #expect(timed == .shutDown)
        #expect(harness.steps.steps.last.map { if case .stopped = $0 { true } else { false } } == true)
    }

    @Test func shutdownStopsFetchingAndKeepsTheFlagsReadable() async throws {
        let service = harness.service([.body(FlagFixtures.data)], afterScript: nil)
        let (client, _, _) = harness.client(service)
        try await client.ready()
        try await clock.waitForSleepers(1)  // the next refresh
        await client.shutdown()
        let fetches = service.fetchCount
        clock.advance(by: 3_600)
        #expect(service.fetchCount == fetches)
        #expect(clock.sleeperCount == 0)
        #expect(client.config == FlagFixtures.flagSet)
        #expect(client.status.isShutDown)
    }

    @Test func shutdownDuringAFetchThatIgnoresCancellationReturnsPromptly() async throws {
        let service = harness.service([.hangIgnoringCancellation])
        let (client, _, events) = harness.client(service)
        try await service.waitForFetches(1)
        await client.shutdown()
        #expect(harness.steps.steps.last.map { if case .stopped = $0 { true } else { false } } == true)
        service.releaseHangingFetches()
        #expect(events.payloads.isEmpty)
    }

    // MARK: The SDK's own events

    @Test func sdkFiresItsErrorEventThroughTheEmitterFromMake() async throws {
        let (client, emitter, events) = harness.client(harness.service([.body(FlagFixtures.data)]))
        try await client.ready()
        emitter.fire(FlagErrorPayload(message: "evaluation of headerColor failed"))
        #expect(
            try await events.next(2) == [
                Self.initializedLive, .error(FlagErrorPayload(message: "evaluation of headerColor failed")),
            ])
        await client.shutdown()
    }

    @Test func appCodeSubscribesThroughTheReaderOnTheMainActor() async throws {
        let (client, _, _) = harness.client(harness.service([.body(FlagFixtures.data)]))
        let flags = client.reader
        let received = CallLog<FlagEvent>()
        let token = flags.on(.initialized) { payload in
            MainActor.preconditionIsolated()
            received.append(payload.event)
        }
        try await flags.ready()
        await flags.bus.flush()
        #expect(received.items == [.initialized])
        #expect(flags.bus.listenerCount(for: .initialized) == 1)
        await flags.off(token)
        #expect(flags.bus.listenerCount(for: .initialized) == 0)
        await client.shutdown()
    }

    @Test func appCodeHoldingTheReaderGetsTheErrorTheSDKEndedReadinessWith() async throws {
        struct KeyRevoked: Error, Equatable {}
        let service = harness.service([.hang])
        let (client, _, _) = harness.client(service)
        let flags = client.reader
        let waiter = Task { try await flags.ready() }
        try await service.waitForFetches(1)
        #expect(client.failReadiness(with: KeyRevoked()), "ending readiness is the SDK's, on the client")
        await #expect(throws: KeyRevoked()) { try await waiter.value }
        await #expect(throws: KeyRevoked()) { try await flags.ready() }
        await client.shutdown()
    }

    @Test func droppingTheClientStopsItsLifecycle() async throws {
        weak var weakClient: FlagClient?
        do {
            let (client, _, _) = harness.client(harness.service([.hang]))
            weakClient = client
        }
        #expect(weakClient == nil)
        try await harness.steps.wait("the lifecycle stopped") { if case .stopped = $0 { true } else { false } }
    }
}
