import Foundation
import SDKEventBus
import SDKEventBusTesting
import Testing

/// An SDK that fetches, caches and schedules by itself drives readiness with the store's public
/// calls only: set a configuration it got its own way, declare readiness without one, fail it with
/// its own error, and read where it stands.
@Suite(.timeLimit(.minutes(1))) struct ReadinessByHandTests {
    struct BundledConfigUnreadable: Error, CustomStringConvertible {
        var description: String { "the bundled configuration did not decode" }
    }

    struct InvalidKey: Error, Equatable {}

    let events: EventRecorder<SystemEvent>
    let store: ConfigStore

    init() {
        let (bus, emitter) = EventBus.makeBus()
        events = EventRecorder(bus, delivery: .immediate)
        store = ConfigStore(emitter: emitter)
    }

    @Test func readinessDeclaredByHandWithoutAConfigurationResumesEveryWaiterDegraded() async throws {
        let waiter = Task { [store] in try await store.waitForReady() }
        try await store.waitForReadyWaiters(1)
        #expect(await store.setDegraded(because: BundledConfigUnreadable()))
        let readiness = try await waiter.value
        #expect(readiness.source == .degraded)
        #expect(readiness.error is BundledConfigUnreadable)
        #expect(store.isReady && store.readiness?.source == .degraded && store.config == nil)
        #expect(
            events.payloads == [
                .ready(ReadyPayload(source: .degraded, error: "the bundled configuration did not decode"))
            ])
        #expect(!(await store.setDegraded(because: BundledConfigUnreadable())), "readiness is decided once")
    }

    @Test func aConfigurationSetByHandAfterADegradedStartIsAnnouncedAsAnUpdate() async throws {
        await store.setDegraded(because: BundledConfigUnreadable())
        let fetched = Fixtures.config(named: "fetched by the SDK")
        #expect(await store.setConfig(fetched, from: .live) == .updated)
        #expect(store.config == fetched)
        #expect(try await store.waitForReady().source == .degraded, "readiness keeps how it came")
        #expect(events.events == [.ready, .configUpdated])
    }

    @Test func aConfigurationSetByHandMakesTheStoreReadyFromWhereItCame() async throws {
        let cached = Fixtures.config(named: "cached by the SDK")
        let savedAt = Date(timeIntervalSinceNow: -90)
        #expect(await store.setConfig(cached, from: .cache, fetchedAt: savedAt) == .first)
        let readiness = try await store.waitForReady(timeout: 1)
        #expect(readiness.source == .cache)
        #expect((readiness.configAge ?? 0) >= 90)
    }

    @Test func readinessFailedByHandThrowsTheSDKsErrorToEveryWaiter() async throws {
        let waiter = Task { [store] in try await store.waitForReady() }
        try await store.waitForReadyWaiters(1)
        #expect(store.failReadiness(with: InvalidKey()))
        await #expect(throws: InvalidKey()) { try await waiter.value }
        await #expect(throws: InvalidKey()) { try await store.waitForReady() }
        #expect(!store.isReady && store.readiness == nil)
        #expect(!(await store.setDegraded(because: BundledConfigUnreadable())), "a failure stands")
        #expect(events.payloads.isEmpty)
    }
}
