import Dispatch
import Foundation
import SDKEventBusTesting
import Testing

@testable import SDKEventBus
@testable import SDKEventBusConfig
@testable import SDKEventBusCore
@testable import SDKEventBusWire

/// `shutdown()` never waits without bound, measured on the configured clock, and says what it
/// abandoned: a fetch or cache call in flight, a lifecycle that does not stop, events an actor
/// never runs.
@Suite struct ShutdownBoundTests {
    let rig = LifecycleRig()
    let a = Fixtures.config(named: "A")

    /// A client on the rig's clock that fetches until its first success, then only on demand, so
    /// that nothing of the lifecycle sleeps on the clock once it is ready.
    func client(_ service: MockConfigFetchService) -> (SDKClient, EventEmitter) {
        let (_, emitter) = EventBus.makeBus()
        let settings = SDKConfiguration(
            refreshInterval: nil, retryPolicy: LifecycleRig.retryPolicy,
            diagnostics: rig.steps.handler
        ).on(rig.clock)
        return (
            SDKClient(store: ConfigStore(emitter: emitter), configuration: settings, fetchService: service), emitter
        )
    }

    @Test func shutdownThatFinishesInTimeAbandonsNothingAndLeavesNoSleeper() async throws {
        let (client, _) = client(rig.service([.config(a)]))
        try await client.ready()
        let report = await client.shutdown()
        #expect(report.isComplete)
        #expect(report.abandoned.isEmpty)
        #expect(report.description == "shut down")
        #expect(rig.clock.sleeperCount == 0, "the bound's timer ended with the shutdown")
    }

    @Test func aShutdownWithEveryEventDeliveredAbandonsNoDeliveryEvenWithNoTimeToWait() async throws {
        let (client, emitter) = client(rig.service([.config(a)]))
        try await client.ready()
        emitter.fire(.bucketing(BucketingPayload(experienceId: "e", variationId: "v", visitorId: "u")))
        await client.bus.flush()
        let report = await client.shutdown(timeout: 0)
        #expect(!report.abandoned.contains(.delivery), "\(report)")
    }

    @available(macOS 14, iOS 17, tvOS 17, watchOS 10, *)
    @Test func shutdownStopsWaitingForAnActorThatNeverRunsAfterItsTimeoutOnTheClock() async throws {
        let (client, emitter) = client(rig.service([.config(a)]))
        try await client.ready()
        let stalled = StalledActor()
        defer { stalled.release() }
        client.bus.on(.bucketing, delivery: .isolated(to: stalled)) { _, _ in }
        emitter.fire(SamplePayloads.sample(.bucketing))  // queued for an actor that never runs
        let shutdown = Task { await client.shutdown(timeout: 3) }
        try await rig.clock.waitForSleepers(1)
        #expect(try await rig.clock.timeUntilNextDeadline() == 3)
        rig.clock.advance(by: 3)
        let report = await shutdown.value
        #expect(report.abandoned == [.delivery])
        #expect(client.status.isShutDown)
        await #expect(throws: ReadinessError.shutDown) { try await client.ready() }
    }

    @available(macOS 14, iOS 17, tvOS 17, watchOS 10, *)
    @Test func cancellingTheTaskThatShutsDownEndsTheWaitAtOnce() async throws {
        let (client, emitter) = client(rig.service([.config(a)]))
        try await client.ready()
        let stalled = StalledActor()
        defer { stalled.release() }
        client.bus.on(.bucketing, delivery: .isolated(to: stalled)) { _, _ in }
        emitter.fire(SamplePayloads.sample(.bucketing))
        let shutdown = Task { await client.shutdown(timeout: 3) }
        try await rig.clock.waitForSleepers(1)
        shutdown.cancel()
        #expect(await shutdown.value.abandoned == [.delivery], "returned without the clock moving")
    }

    @Test func aFetchThatIgnoresCancellationIsAbandonedAtOnceAndReported() async throws {
        let service = rig.service([.hangIgnoringCancellation])
        let (client, _) = client(service)
        try await service.waitForFetches(1)
        let report = await client.shutdown()
        #expect(report.abandoned == [.fetch])
        #expect(report.description == "shut down, abandoning a fetch in flight")
        service.releaseHangingFetches()
    }

    @Test func aCacheThatNeverAnswersIsAbandonedAtOnceAndReported() async throws {
        let cache = SilentCache()
        let (_, emitter) = EventBus.makeBus()
        let settings = SDKConfiguration(cache: cache).on(rig.clock)
        let client = SDKClient(
            store: ConfigStore(emitter: emitter), configuration: settings, fetchService: rig.service([.config(a)]))
        await cache.waitForLoad()
        let report = await client.shutdown()
        #expect(report.abandoned == [.cache])
        cache.answer()
    }

    @Test func theBoundCoversALifecycleTaskThatNeverEnds() async throws {
        let clock = TestClock()
        let (bus, _) = EventBus.makeBus()
        let stuck = Suspension()
        let lifecycle = Task { await stuck.wait() }
        let drain = Task { await SDKClient.drain(lifecycle: lifecycle, bus: bus, within: 2, clock: clock) }
        try await clock.waitForSleepers(1)
        clock.advance(by: 2)
        #expect(await drain.value == [.lifecycle])
        stuck.resume()
        await lifecycle.value
    }
}

/// An actor whose jobs wait on a suspended dispatch queue: a delivery context that never runs,
/// without blocking any thread, until ``release()``.
@available(macOS 14, iOS 17, tvOS 17, watchOS 10, *)
actor StalledActor {
    private let executor = DispatchQueueExecutor(label: "StalledActor")

    nonisolated var unownedExecutor: UnownedSerialExecutor {
        executor.asUnownedSerialExecutor()
    }

    init() {
        executor.queue.suspend()
    }

    /// Lets its jobs run; call it before the actor goes (a suspended queue must not be released).
    nonisolated func release() {
        executor.queue.resume()
    }
}

/// A cache whose `load()` suspends, ignoring cancellation, until ``answer()``.
final class SilentCache: ConfigCache {
    private let loading = Suspension()
    private let loadStarted = Suspension()

    /// Returns once the lifecycle called `load()`.
    func waitForLoad() async {
        await loadStarted.wait()
    }

    /// Ends the load, with nothing cached.
    func answer() {
        loading.resume()
    }

    func load() async throws -> ProjectConfig? {
        loadStarted.resume()
        await loading.wait()
        return nil
    }

    func save(_ config: ProjectConfig, body: Data) throws {}

    func clear() throws {}
}
