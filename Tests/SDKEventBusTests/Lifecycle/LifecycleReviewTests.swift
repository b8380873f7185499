import Foundation
import SDKEventBusTesting
import Testing

@testable import SDKEventBus
@testable import SDKEventBusConfig
@testable import SDKEventBusCore
@testable import SDKEventBusWire

/// What an outside review of the lifecycle found, each pinned: an error that ends readiness after
/// readiness, a refresh caught by shutdown, a degraded deadline left sleeping, `failReadiness` after
/// readiness.
@Suite struct LifecycleReviewTests {
    let rig = LifecycleRig()
    let a = Fixtures.config(named: "A")
    let b = Fixtures.config(named: "B")

    @Test func anErrorThatEndsReadinessAfterReadinessIsAFailureLikeAnotherAndFetchingGoesOn() async throws {
        let service = rig.service([.failure(InvalidSDKKey()), .config(b)])
        let (client, _) = rig.client(service, initialConfig: a)
        #expect(try await client.ready().source == .initial)
        try await rig.steps.wait { $0.isFetchFailed }
        #expect(client.config == a, "the last good configuration stays")
        #expect(try await client.ready().source == .initial, "readiness stands")
        #expect(try await rig.clock.advanceToNextDeadline() > .zero, "the lifecycle still schedules fetches")
        try await rig.steps.wait { $0.appliedChange == .updated }
        #expect(client.config == b)
        await client.shutdown()
    }

    @Test func refreshAfterAnErrorEndedReadinessThrowsThatErrorNotShutdown() async throws {
        let (client, _) = rig.client(rig.service([.failure(InvalidSDKKey())]))
        await #expect(throws: InvalidSDKKey()) { try await client.ready() }
        try await rig.steps.wait { $0.isStopped }
        await #expect(throws: InvalidSDKKey()) { try await client.refreshNow() }
        await client.shutdown()
    }

    @Test func aRefreshInFlightWhenTheClientShutsDownThrowsShutDown() async throws {
        let service = rig.service([.config(a)], afterScript: .hang)
        let (client, _) = rig.client(service, refreshInterval: nil)
        try await client.ready()
        let refresh = Task { try await client.refreshNow() }
        try await service.waitForFetches(2)
        await client.shutdown()
        await #expect(throws: ReadinessError.shutDown) { try await refresh.value }
    }

    @Test func theDegradedDeadlineStopsWaitingOnceReadinessIsDecided() async throws {
        let (client, _) = rig.client(rig.service([.config(a)]), policy: .degraded(after: 3))
        #expect(try await client.ready().source == .live)
        try await rig.steps.wait { $0.appliedChange == .first }
        #expect(try await rig.clock.advanceToNextDeadline() == 60, "the next refresh, not the deadline")
        await client.shutdown()
    }

    @Test func failingReadinessAfterItWasDecidedChangesNothing() async throws {
        let (client, _) = rig.client(rig.service([.config(a)]))
        try await client.ready()
        #expect(!client.store.failReadiness(with: InvalidSDKKey()))
        #expect(try await client.ready().source == .live, "the first outcome stands")
        await client.shutdown()
    }

    @Test func failingReadinessDuringAFetchEndsTheRefreshWaitingForItWithThatError() async throws {
        let service = rig.service([.delayed(5, .config(a))])
        let (client, events) = rig.client(service)
        try await service.waitForFetches(1)
        // Whether the refresh joins the fetch before or after readiness fails, it throws the error.
        let refresh = Task { try await client.refreshNow() }
        #expect(client.failReadiness(with: InvalidSDKKey()))
        // Failing readiness stops the lifecycle, which abandons the fetch; were it to arrive anyway,
        // it is discarded, recorded neither as a success nor as applied.
        rig.clock.advance(by: 5)
        await #expect(throws: InvalidSDKKey()) { try await refresh.value }
        await #expect(throws: InvalidSDKKey()) { try await client.refreshNow() }
        try await rig.steps.wait { $0.isStopped }
        #expect(!rig.steps.steps.contains { $0.appliedChange != nil }, "\(rig.steps.steps)")
        #expect(!rig.steps.steps.contains { if case .refreshScheduled = $0 { true } else { false } })
        #expect(client.status.lastSuccessfulFetchDate == nil)
        #expect(client.config == nil)
        await #expect(throws: InvalidSDKKey()) { try await client.ready() }
        #expect(events.events.isEmpty, "no ready, no update")
        await client.shutdown()
    }

    @Test func recorderNextReturnsAStepRecordedBeforeItWasCalledAndThenTheOneAfter() async throws {
        let steps = LifecycleRecorder()
        let failure = MockConfigFetchService.SimulatedError("reset")
        steps.handler(.fetchStarted(attempt: 1))
        steps.handler(.fetchFailed(failure, attempt: 1, retryIn: 1))
        let first = try await steps.next { $0.failure != nil }
        #expect(first.retryDelay == 1, "a step recorded before the call is not missed")
        let second = Task { try await steps.next(within: 30) { $0.failure != nil } }
        steps.handler(.fetchFailed(failure, attempt: 2, retryIn: 2))
        #expect(try await second.value.retryDelay == 2, "the next call returns the one after")
    }
}
