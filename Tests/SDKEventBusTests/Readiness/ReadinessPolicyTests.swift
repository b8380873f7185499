import Foundation
import SDKEventBusTesting
import Testing

@testable import SDKEventBus
@testable import SDKEventBusConfig
@testable import SDKEventBusCore
@testable import SDKEventBusWire

/// Each readiness policy against each first outcome: how `ready()` resolves, with which facts, and
/// what is announced.
@Suite struct ReadinessPolicyTests {
    let rig = LifecycleRig()
    let a = Fixtures.config(named: "A")
    let b = Fixtures.config(named: "B")
    let failure = MockConfigFetchService.SimulatedError("connection reset")

    // MARK: Live

    @Test func liveReadyComesFromTheFirstSuccessfulFetch() async throws {
        let (client, events) = rig.client(rig.service([.config(a)]), policy: .live)
        let readiness = try await client.ready()
        #expect(readiness.source == .live)
        #expect(readiness.configAge == .zero)
        #expect(client.config == a)
        try await events.waitForCount(1)
        #expect(ReadyPayload(events.payloads[0])?.source == .live)
        await client.shutdown()
    }

    @Test func liveIgnoresTheCacheAndTheInitialConfigForReadiness() async throws {
        let service = rig.service([.failure(failure), .config(b)])
        let (client, _) = rig.client(service, policy: .live, cache: MemoryCache(a), initialConfig: a)
        try await rig.steps.wait("the first failure") { $0.failure != nil }
        #expect(!client.status.isReady, "neither the cache nor the initial config made it ready")
        #expect(client.config == nil)
        try await rig.clock.advanceToNextDeadline()
        #expect(try await client.ready().source == .live)
        #expect(client.config == b)
        await client.shutdown()
    }

    @Test func liveKeepsWaitingThroughFailures() async throws {
        let (client, _) = rig.client(rig.service([.failure(failure), .failure(failure), .config(a)]), policy: .live)
        for failures in 1...2 {
            try await rig.steps.wait(for: failures, "failure \(failures)") { $0.failure != nil }
            #expect(!client.status.isReady)
            try await rig.clock.advanceToNextDeadline()
        }
        #expect(try await client.ready().source == .live)
        await client.shutdown()
    }

    // MARK: Cached or live

    @Test func cachedOrLiveIsReadyFromTheCacheWithItsAge() async throws {
        let saved = Date().addingTimeInterval(-3_600)
        let (client, events) = rig.client(rig.service([.hang]), cache: MemoryCache(a, savedAt: saved))
        let readiness = try await client.ready()
        #expect(readiness.source == .cache)
        let age = try #require(readiness.configAge)
        #expect(age >= 3_600 && age < 3_700)
        try await events.waitForCount(1)
        let announced = try #require(ReadyPayload(events.payloads[0]))
        #expect(announced.source == .cache && (announced.configAgeSeconds ?? 0) >= 3_600)
        await client.shutdown()
    }

    @Test func cachedOrLiveIsReadyFromTheInitialConfigWithAnUnknownAge() async throws {
        let (client, _) = rig.client(rig.service([.hang]), initialConfig: a)
        let readiness = try await client.ready()
        #expect(readiness.source == .initial)
        #expect(readiness.configAge == nil)
        await client.shutdown()
    }

    @Test func cachedOrLiveWithNothingStoredWaitsForALiveFetch() async throws {
        let (client, _) = rig.client(rig.service([.failure(failure), .config(a)]))
        try await rig.steps.wait("the first failure") { $0.failure != nil }
        #expect(!client.status.isReady)
        try await rig.clock.advanceToNextDeadline()
        #expect(try await client.ready().source == .live)
        await client.shutdown()
    }

    // MARK: Degraded

    @Test func degradedResolvesAfterTheFirstFailureWithoutAConfig() async throws {
        let (client, events) = rig.client(rig.service([.failure(failure), .config(a)]), policy: .degraded())
        let readiness = try await client.ready()
        #expect(readiness.source == .degraded)
        #expect(readiness.source == .degraded)
        #expect(readiness.error as? MockConfigFetchService.SimulatedError == failure)
        #expect(client.config == nil)
        try await events.waitForCount(1)
        let announced = try #require(ReadyPayload(events.payloads[0]))
        #expect(announced.source == .degraded && announced.error == "connection reset")
        await client.shutdown()
    }

    @Test func aSuccessAfterADegradedStartIsAnnouncedAsAnUpdateWithEverythingAdded() async throws {
        let (client, events) = rig.client(rig.service([.failure(failure), .config(a)]), policy: .degraded())
        try await client.ready()
        try await rig.clock.advanceToNextDeadline()
        let update = try await events.next(2)[1]
        #expect(update.event == .configUpdated)
        let changes = try #require(ConfigUpdatedPayload(update)?.changes)
        #expect(changes.experiences.added == a.experiences.map(\.key).sorted())
        #expect(changes.projectChanged)
        #expect(client.config == a)
        #expect(try await client.ready().source == .degraded, "every later ready() returns the same first outcome")
        await client.shutdown()
    }

    @Test func degradedDeadlineResolvesBeforeASlowFirstFetch() async throws {
        let service = rig.service([.delayed(10, .config(a))])
        let (client, events) = rig.client(service, policy: .degraded(after: 3))
        try await rig.clock.waitForSleepers(2)  // the deadline and the slow fetch
        rig.clock.advance(by: 3)
        let readiness = try await client.ready()
        #expect(readiness.source == .degraded)
        #expect(readiness.error as? ReadinessError == .timedOut(after: 3))
        rig.clock.advance(by: 7)
        try await events.waitForCount(2)
        #expect(events.events == [.ready, .configUpdated])
        await client.shutdown()
    }

    @Test func degradedStillPrefersTheCache() async throws {
        let (client, _) = rig.client(rig.service([.failure(failure)]), policy: .degraded(), cache: MemoryCache(a))
        #expect(try await client.ready().source == .cache)
        await client.shutdown()
    }

    // MARK: Same outcome for everyone

    @Test func thousandConcurrentReadyCallersGetTheSameOutcomeExactlyOnce() async throws {
        let (client, _) = rig.client(rig.service([.delayed(1, .config(a))]))
        let outcomes = try await withThrowingTaskGroup(of: Readiness?.self) { group in
            for _ in 0..<1_000 { group.addTask { try? await client.ready() } }
            try await client.waitForReadyWaiters(1_000)
            try await rig.clock.waitForSleepers(1)  // the fetch waits its scripted second
            rig.clock.advance(by: 1)
            var outcomes: [Readiness?] = []
            for try await outcome in group { outcomes.append(outcome) }
            return outcomes
        }
        #expect(outcomes.count == 1_000)
        let first = try #require(outcomes.first ?? nil)
        let later = try await client.ready()
        #expect((outcomes + [later]).allSatisfy { $0?.source == first.source && $0?.date == first.date })
        await client.shutdown()
    }
}
