import Foundation
import SDKEventBusTesting
import Testing

@testable import SDKEventBus
@testable import SDKEventBusConfig
@testable import SDKEventBusCore
@testable import SDKEventBusWire

#if canImport(FoundationNetworking)
    import FoundationNetworking
#endif

/// Faults injected through the mock fetch service, on a manual clock.
// The limit only catches a hang: the failure storms take ~10 s beside the model-checked workout
// and over 100 s under the thread sanitizer on two cores.
@Suite(.timeLimit(.minutes(5))) @MainActor struct FaultInjectionTests {
    let a = Fixtures.config(named: "A")
    let b = Fixtures.config(named: "B")
    let harness = ClientHarness()

    /// A client whose first fetch is under way (the mock's one-second wait has passed).
    func makeClient(_ script: [MockConfigFetchService.Outcome]) async throws -> (SDKClient, MockConfigFetchService) {
        let service = harness.mock(script)
        let (client, _) = harness.client(service)
        _ = try await harness.clock.timeUntilNextDeadline()
        harness.clock.advance(by: 1)
        return (client, service)
    }

    static let errors: [any Error] = [
        MockConfigFetchService.SimulatedError("connection reset"),
        URLError(.timedOut),
        URLError(.notConnectedToInternet),
        NSError(domain: NSPOSIXErrorDomain, code: Int(ECONNREFUSED)),
        CancellationError(),  // thrown by the service itself, not by shutdown
        DecodingError.dataCorrupted(.init(codingPath: [], debugDescription: "a service's own decoder failed")),
        JSONDecodingError(code: .invalidSyntax, reason: "truncated"),
    ]

    @Test func everyKindOfFetchErrorIsRetriedWithBackoffKeepingTheLastGoodConfig() async throws {
        let failures = Self.errors.map { MockConfigFetchService.Outcome.failure($0) }
        let (client, service) = try await makeClient([.config(a)] + failures + [.body(Data("{".utf8)), .config(b)])
        try await client.ready()
        #expect(try await harness.clock.advanceToNextDeadline() == 60)
        var delays: [TimeInterval] = []
        for _ in 0...Self.errors.count {
            await harness.diagnostics.wait(for: delays.count + 1) { $0.isFetchFailed }
            #expect(client.config == a, "the last good config stays while fetches fail")
            delays.append(try await harness.clock.advanceToNextDeadline())
        }
        await harness.diagnostics.wait { $0.appliedChange == .updated }
        #expect(delays == [1, 2, 4, 8, 16, 30, 30, 30].map { TimeInterval($0) })
        #expect(client.config == b)
        #expect(service.fetchCount == Self.errors.count + 3)
        // The step is reported before the update it announces is fired: wait for the event.
        try await harness.recorder.waitForCount(2)
        await client.bus.flush()
        #expect(harness.recorder.events == [.ready, .configUpdated], "failures fire nothing")
        await client.shutdown()
    }

    @Test func flappingSuccessAndFailureResetsTheBackoffAfterEverySuccess() async throws {
        let failure = MockConfigFetchService.Outcome.failure(URLError(.timedOut))
        let (client, _) = try await makeClient([.config(a), failure, .config(b), failure, failure, .config(a), failure])
        try await client.ready()
        var delays: [TimeInterval] = []
        for _ in 0..<7 { delays.append(try await harness.clock.advanceToNextDeadline()) }
        // refresh, retry 1, refresh, retry 1, retry 2, refresh, retry 1
        #expect(delays == [60, 1, 60, 1, 2, 60, 1].map { TimeInterval($0) })
        await harness.diagnostics.wait(for: 2) { $0.appliedChange == .updated }
        try await harness.recorder.waitForCount(3)
        await client.bus.flush()
        #expect(harness.recorder.events == [.ready, .configUpdated, .configUpdated])
        await client.shutdown()
    }

    @Test func clientStaysResponsiveDuringAFailureStorm() async throws {
        let failure = MockConfigFetchService.Outcome.failure(MockConfigFetchService.SimulatedError("503"))
        let (client, service) = try await makeClient(Array(repeating: failure, count: 1_000) + [.config(a)])
        for round in 0..<1_000 {
            if round % 100 == 0 {
                // Reads and timed waits answer at once while the storm goes on.
                #expect(client.config == nil)
                let timed = Task { try await client.ready(timeout: .zero) }
                await #expect(throws: ReadinessError.timedOut(after: .zero)) { try await timed.value }
            }
            try await harness.clock.advanceToNextDeadline()
        }
        try await client.ready()
        #expect(service.fetchCount == 1_001)
        #expect(
            harness.diagnostics.steps.compactMap(\.retryDelay).max() == 30, "backoff capped as configured")
        await client.shutdown()
    }

    @Test func fetchThatHangsUntilShutdownEndsPromptlyAndFailsWaiters() async throws {
        let (client, service) = try await makeClient([.hang])
        let waiter = Task { try await client.ready() }
        try await service.waitForFetches(1)
        try await client.store.waitForReadyWaiters(1)
        await client.shutdown()
        await #expect(throws: ReadinessError.shutDown) { try await waiter.value }
        #expect(harness.diagnostics.steps.last?.isStopped == true)
    }

    @Test func slowFetchOvertakenByShutdownAppliesNothing() async throws {
        let (client, _) = try await makeClient([.config(a), .delayed(45, .config(b))])
        await harness.diagnostics.wait { $0.appliedChange == .first }
        harness.clock.advance(by: 60)  // the refresh starts and waits 45 s
        try await harness.clock.waitForSleepers(1)
        await client.shutdown()
        harness.clock.advance(by: 45)
        #expect(client.config == a)
        await client.bus.flush()
        #expect(harness.recorder.events == [.ready])
    }
}
