import Foundation
import SDKEventBusTesting
import Testing

@testable import SDKEventBus
@testable import SDKEventBusConfig
@testable import SDKEventBusCore
@testable import SDKEventBusWire

/// The lifecycle through the facade, on a manual clock: nothing here waits for real time.
// The limit only catches a hang: the failure storms take ~10 s beside the model-checked workout
// and over 100 s under the thread sanitizer on two cores.
@Suite(.timeLimit(.minutes(5))) @MainActor struct SDKClientLifecycleTests {
    let a = Fixtures.config(named: "A")
    let b = Fixtures.config(named: "B")
    let harness = ClientHarness()

    /// A client whose first fetch waits one second on the clock, so a test can subscribe first.
    func makeClient(
        _ script: [MockConfigFetchService.Outcome],
        afterScript: MockConfigFetchService.Outcome? = .hang,
        refreshInterval: TimeInterval? = 60
    ) async throws -> (SDKClient, MockConfigFetchService, EventEmitter) {
        let service = harness.mock(script, afterScript: afterScript)
        let (client, emitter) = harness.client(service, refreshInterval: refreshInterval)
        #expect(try await harness.clock.timeUntilNextDeadline() == 1, "the first fetch waits for the test")
        return (client, service, emitter)
    }

    @Test func clientBecomesReadyFromTheFirstFetchAndTheConfigIsReadable() async throws {
        let (client, _, _) = try await makeClient([.config(a)])
        harness.clock.advance(by: 1)
        try await client.ready()
        #expect(client.config == a)
        await client.bus.flush()
        #expect(harness.recorder.events == [.ready])
        await client.shutdown()
    }

    @Test func zeroRefreshIntervalIsRaisedToTheOneSecondFloorInsteadOfSpinning() async throws {
        var settings = SDKConfiguration(refreshInterval: .zero)
        #expect(settings.refreshInterval == LifecycleConfiguration<ProjectConfig>.minimumRefreshInterval)
        settings.refreshInterval = 0.001
        #expect(settings.refreshInterval == 1, "the setter keeps the floor too")
        settings.refreshInterval = .nan
        #expect(settings.refreshInterval == 1, "an interval that is not a number cannot spin either")
        #expect(SDKConfiguration(refreshInterval: -.infinity).refreshInterval == 1)

        let (client, service, _) = try await makeClient([.config(a), .config(a), .config(a)], refreshInterval: .zero)
        harness.clock.advance(by: 1)
        try await client.ready()
        for _ in 0..<2 { #expect(try await harness.clock.advanceToNextDeadline() == 1) }
        await harness.diagnostics.wait(for: 2) { $0.appliedChange == .unchanged }
        #expect(service.fetchCount == 3, "one fetch per second, not a hot loop")
        await client.shutdown()
    }

    @Test func failedFetchesAreRetriedWithBackoffWithoutFailingWaiters() async throws {
        let failure = MockConfigFetchService.SimulatedError("connection reset")
        let (client, service, _) = try await makeClient([
            .failure(failure), .failure(failure), .failure(failure), .config(a),
        ])
        let waiter = Task { try await client.ready() }
        harness.clock.advance(by: 1)
        var delays: [TimeInterval] = []
        for _ in 0..<3 { delays.append(try await harness.clock.advanceToNextDeadline()) }
        _ = try await waiter.value
        #expect(delays == [1, 2, 4])
        #expect(service.fetchCount == 4)
        #expect(harness.diagnostics.steps.compactMap(\.retryDelay) == delays)
        await client.shutdown()
    }

    @Test func backoffIsCappedDuringAFailureStorm() async throws {
        let failure = MockConfigFetchService.SimulatedError("503")
        let (client, service, _) = try await makeClient(
            Array(repeating: .failure(failure), count: 1_000) + [.config(a)])
        harness.clock.advance(by: 1)
        var delays: [TimeInterval] = []
        for _ in 0..<1_000 { delays.append(try await harness.clock.advanceToNextDeadline()) }
        try await client.ready()
        #expect(Array(delays.prefix(6)) == [1, 2, 4, 8, 16, 30].map { TimeInterval($0) })
        #expect(delays.dropFirst(5).allSatisfy { $0 == 30 })
        #expect(service.fetchCount == 1_001)
        await client.shutdown()
    }

    @Test func refreshFollowsTheIntervalAndAChangedConfigFiresConfigUpdated() async throws {
        let (client, service, _) = try await makeClient([.config(a), .config(b)])
        harness.clock.advance(by: 1)
        try await client.ready()
        #expect(try await harness.clock.advanceToNextDeadline() == 60)
        await harness.diagnostics.wait { $0.appliedChange == .updated }
        #expect(client.config == b)
        #expect(service.fetchCount == 2)
        try await harness.recorder.waitForCount(2)  // the step is reported before the event fires
        await client.bus.flush()
        #expect(harness.recorder.events == [.ready, .configUpdated])
        #expect(harness.recorder.readiness?.source == .live)
        #expect(
            harness.recorder.payloads.last
                == .configUpdated(ConfigUpdatedPayload(snapshot: b, changes: .init(from: a, to: b)))
        )
        await client.shutdown()
    }

    @Test func refreshWithTheSameConfigFiresNothing() async throws {
        let (client, _, _) = try await makeClient([.config(a), .config(a), .config(a)])
        harness.clock.advance(by: 1)
        try await client.ready()
        for _ in 0..<2 { #expect(try await harness.clock.advanceToNextDeadline() == 60) }
        await harness.diagnostics.wait(for: 2) { $0.appliedChange == .unchanged }
        await client.bus.flush()
        #expect(harness.recorder.events == [.ready])
        await client.shutdown()
    }

    @Test(arguments: MalformedBody.corpus)
    func malformedBodyIsRejectedKeepingTheLastGoodConfigWithoutAnyEvent(_ malformed: MalformedBody) async throws {
        let (client, service, _) = try await makeClient([.config(a), .body(malformed.body), .config(a)])
        harness.clock.advance(by: 1)
        try await client.ready()
        #expect(try await harness.clock.advanceToNextDeadline() == 60)
        await harness.diagnostics.wait { $0.isFetchFailed }
        let error = try #require(harness.diagnostics.steps.compactMap(\.failure).first as? JSONDecodingError)
        #expect(error.code == malformed.code)
        #expect(client.config == a, "the last good config stays")
        #expect(try await harness.clock.advanceToNextDeadline() == 1, "the lifecycle goes on, with backoff")
        await harness.diagnostics.wait { $0.appliedChange == .unchanged }
        #expect(service.fetchCount == 3)
        await client.bus.flush()
        #expect(harness.recorder.events == [.ready], "a rejected body fires nothing")
        await client.shutdown()
    }

    @Test func malformedFirstBodyDoesNotMakeTheClientReady() async throws {
        let (client, _, _) = try await makeClient([.body(Data("[]".utf8)), .config(a)])
        harness.clock.advance(by: 1)
        await harness.diagnostics.wait { $0.isFetchFailed }
        #expect(client.store.isReady == false)
        #expect(client.config == nil)
        // The retry's backoff: wait for its sleep, which starts after the failure is reported.
        #expect(try await harness.clock.advanceToNextDeadline() == 1)
        try await client.ready()
        #expect(client.config == a)
        await client.shutdown()
    }

    @Test(arguments: [0, -1, TimeInterval.nan])
    func aTimeoutOfZeroOrLessOrNaNWaitsNotAtAll(timeout: TimeInterval) async throws {
        let (client, _, _) = try await makeClient([.hang])
        await #expect(throws: ReadinessError.self) { try await client.ready(timeout: timeout) }
        await client.shutdown()
        let (ready, _, _) = try await makeClient([.config(a)])
        harness.clock.advance(by: 1)
        try await ready.ready()
        #expect(try await ready.ready(timeout: timeout).source == .live, "a ready client returns")
        await ready.shutdown()
    }

    @Test func readyTimeoutThrowsAndALaterReadySucceeds() async throws {
        let (client, _, _) = try await makeClient([.delayed(10, .config(a))])
        let clock = harness.clock
        let timed = Task { try await client.ready(timeout: 2, clock: clock) }
        harness.clock.advance(by: 1)  // the first fetch starts and waits 10 s
        try await harness.clock.waitForSleepers(2)  // the fetch and the timed wait
        harness.clock.advance(by: 2)
        await #expect(throws: ReadinessError.timedOut(after: 2)) { try await timed.value }
        harness.clock.advance(by: 8)
        try await client.ready()
        #expect(client.config == a)
        await client.shutdown()
    }

    @Test func shutdownFailsWaitersAndLaterReadyWithATypedError() async throws {
        let (client, _, _) = try await makeClient([.hang])
        let waiters = (0..<10).map { _ in Task { try await client.ready() } }
        try await client.store.waitForReadyWaiters(10)
        await client.shutdown()
        for waiter in waiters {
            await #expect(throws: ReadinessError.shutDown) { try await waiter.value }
        }
        await #expect(throws: ReadinessError.shutDown) { try await client.ready() }
        await #expect(throws: ReadinessError.shutDown) { try await client.ready(timeout: 1) }
    }

    @Test func shutdownStopsFetching() async throws {
        let (client, service, _) = try await makeClient([.config(a)], afterScript: nil)
        harness.clock.advance(by: 1)
        try await client.ready()
        _ = try await harness.clock.timeUntilNextDeadline()
        await client.shutdown()
        #expect(harness.diagnostics.steps.last?.isStopped == true)
        let fetches = service.fetchCount
        harness.clock.advance(by: 3_600)
        #expect(service.fetchCount == fetches)
        #expect(harness.clock.sleeperCount == 0)
        #expect(client.config == a, "the last config stays readable")
    }

    @Test func shutdownDuringAHangingFetchReturnsPromptly() async throws {
        let (client, service, _) = try await makeClient([.hang])
        harness.clock.advance(by: 1)
        try await service.waitForFetches(1)
        await client.shutdown()
        #expect(harness.diagnostics.steps.last?.isStopped == true)
    }

    @Test func shutdownDuringASlowFetchDiscardsItsResult() async throws {
        let (client, _, _) = try await makeClient([.delayed(30, .config(a))])
        harness.clock.advance(by: 1)
        try await harness.clock.waitForSleepers(1)  // the fetch waits its 30 s
        await client.shutdown()
        harness.clock.advance(by: 30)
        #expect(client.config == nil)
        await client.bus.flush()
        #expect(harness.recorder.events.isEmpty)
    }

    @Test func withoutARefreshIntervalTheLifecycleFetchesOnlyOnDemandAfterTheFirstSuccess() async throws {
        let (client, service, _) = try await makeClient([.config(a), .config(b)], refreshInterval: nil)
        harness.clock.advance(by: 1)
        try await client.ready()
        #expect(try await client.refreshNow() == .updated)
        #expect(service.fetchCount == 2)
        #expect(harness.clock.history == [1], "no refresh was scheduled")
        await client.shutdown()
        #expect(harness.diagnostics.steps.contains { $0.isStopped })
    }

    @Test func sdkAuthorFiresThroughTheEmitterFromMake() async throws {
        let (client, _, emitter) = try await makeClient([.config(a)])
        emitter.fire(.conversion(ConversionPayload(goalId: "g", visitorId: "v")))
        await client.bus.flush()
        #expect(harness.recorder.events == [.conversion])
        await client.shutdown()
    }

    @Test func droppingTheClientStopsItsLifecycle() async throws {
        weak var weakClient: SDKClient?
        do {
            let (client, _, _) = try await makeClient([.hang])
            weakClient = client
            harness.clock.advance(by: 1)
        }
        #expect(weakClient == nil)
        await harness.diagnostics.wait { $0.isStopped }
    }
}
