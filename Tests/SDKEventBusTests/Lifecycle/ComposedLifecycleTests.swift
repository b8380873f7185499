import Foundation
import SDKEventBusTesting
import Testing

@testable import SDKEventBus
@testable import SDKEventBusConfig
@testable import SDKEventBusCore

/// The configuration half as SDKs compose it, beyond the guides: reads of a stale configuration
/// during an outage, a refresh asked for while paused before the first fetch, a configuration the SDK
/// set itself, a client over the SDK's store that is dropped, a clock that ignores cancellation, a
/// retry policy set through its properties, and the notification center the lifecycle observes.
@Suite(.timeLimit(.minutes(1))) struct ComposedLifecycleTests {
    let rig = LifecycleRig()
    let a = Fixtures.config(named: "A")
    let b = Fixtures.config(named: "B")
    let offline = MockConfigFetchService.SimulatedError("offline")

    func settings(
        refreshInterval: TimeInterval? = 60, timeToLive: TimeInterval? = nil, fetchesOnStart: Bool = true
    ) -> SDKConfiguration {
        var settings = SDKConfiguration(
            refreshInterval: refreshInterval, retryPolicy: LifecycleRig.retryPolicy, timeToLive: timeToLive,
            diagnostics: rig.steps.handler)
        settings.fetchesOnStart = fetchesOnStart
        settings.clock = rig.clock
        return settings
    }

    // MARK: Reading the configuration is not a network request

    @Test func readingAStaleConfigurationDuringAnOutageFetchesNothingBeforeTheRetry() async throws {
        let service = rig.service([.config(a), .failure(offline)], afterScript: .failure(offline))
        let (client, _) = SDKClient.makeClient(configuration: settings(timeToLive: 0.2), fetchService: service)
        try await client.ready()
        // The first fetch ends, for the lifecycle, when its loop has applied the configuration and
        // scheduled the next refresh, which may be after `ready()` returns. Waited for: a fetch that
        // ended after the clock moved would count the 100 ms between fetches from then, and the
        // stale read's request would wait on a timer this test never advances (it did, under the
        // thread sanitizer).
        try await rig.steps.wait { if case .refreshScheduled = $0 { true } else { false } }
        client.handle(.lowPowerModeChanged(isEnabled: true))
        rig.clock.advance(by: 0.3)
        #expect(client.config == a, "stale: the first read requests a refresh, which low power mode holds")
        try await rig.steps.wait { if case .refreshHeld = $0 { true } else { false } }
        for _ in 0..<1_000 {
            _ = client.config
            await Task.yield()
        }
        #expect(service.fetchCount == 1, "a thousand reads are one held request, not a thousand fetches")
        client.handle(.lowPowerModeChanged(isEnabled: false))
        try await rig.steps.wait { if case .fetchFailed(_, 1, _) = $0 { true } else { false } }
        for _ in 0..<1_000 {
            _ = client.config
            await Task.yield()
        }
        #expect(service.fetchCount == 2, "backing off: the retry, not a read, fetches next")
        #expect(try await rig.clock.advanceToNextDeadline() == 1, "the retry, at its backoff")
        try await rig.steps.wait { if case .fetchFailed(_, 2, _) = $0 { true } else { false } }
        #expect(service.fetchCount == 3)
        let requests = rig.steps.steps.filter { if case .refreshRequested(.stale) = $0 { true } else { false } }
        #expect(requests.count == 2, "one request per fetch that serves it: the held one, and the retry's")
        await client.shutdown()
    }

    // MARK: refreshNow() always runs

    @Test func aRefreshAskedForRunsWhilePausedBeforeTheLifecycleHasFetched() async throws {
        let service = rig.service([.config(b), .config(b)])
        let (_, emitter) = EventBus.makeBus()
        let store = ConfigStore(emitter: emitter)
        await store.setConfig(a, from: .initial)
        let client = SDKClient(store: store, configuration: settings(fetchesOnStart: false), fetchService: service)
        client.pauseRefreshing()
        client.handle(.lowPowerModeChanged(isEnabled: true))
        #expect(try await client.refreshNow() == .updated, "paused, in low power mode, before any fetch")
        #expect(try await client.refreshNow() == .unchanged, "and again")
        await client.shutdown()
    }

    @Test func aRefreshAskedForIsReportedAsADemandBeforeItsFetch() async throws {
        let service = rig.service([.config(a), .config(b)])
        let (client, _) = SDKClient.makeClient(configuration: settings(), fetchService: service)
        try await client.ready()
        // The first fetch's next refresh is reported by the lifecycle's loop once it applied the
        // configuration, which may be after `ready()` returns: waited for, so that it does not land
        // between the demand and its fetch (it did, under the thread sanitizer).
        try await rig.steps.wait { if case .refreshScheduled = $0 { true } else { false } }
        try await client.refreshNow()
        let steps = rig.steps.steps.map(\.description)
        let demand = try #require(steps.firstIndex(of: "refresh requested (on demand)"))
        #expect(steps[demand + 1] == "fetch started", "\(steps)")
    }

    // MARK: A configuration's age counts from when it was fetched, whoever set it

    @Test func aConfigurationTheSDKSetIsRefreshedOnForegroundOnceOlderThanItsTimeToLive() async throws {
        let service = rig.service([.config(b)])
        let (_, emitter) = EventBus.makeBus()
        let store = ConfigStore(emitter: emitter)
        await store.setConfig(a, from: .live, fetchedAt: Date(timeIntervalSinceNow: -100))
        let client = SDKClient(
            store: store, configuration: settings(timeToLive: 10, fetchesOnStart: false), fetchService: service)
        try await rig.clock.waitForSleepers(1)  // the lifecycle runs: its first refresh is an interval away
        client.handle(.willEnterForeground)
        try await rig.steps.wait { $0.appliedChange == .updated }
        #expect(store.config == b, "100 s old with a 10 s time to live: refreshed")
        await client.shutdown()
    }

    @Test func aConfigurationTheSDKSetRecentlyIsNotRefreshedOnForeground() async throws {
        let service = rig.service([.config(b)])
        let (_, emitter) = EventBus.makeBus()
        let store = ConfigStore(emitter: emitter)
        await store.setConfig(a, from: .cache, fetchedAt: Date(timeIntervalSinceNow: -5))
        let client = SDKClient(
            store: store, configuration: settings(timeToLive: 10, fetchesOnStart: false), fetchService: service)
        try await rig.clock.waitForSleepers(1)
        client.handle(.willEnterForeground)
        let skipped = try await rig.steps.next { if case .refreshSkipped = $0 { true } else { false } }
        guard case .refreshSkipped(let age, 10) = skipped else { return }
        #expect(age >= 5 && age < 10)
        #expect(service.fetchCount == 0)
        await client.shutdown()
    }

    // MARK: Only the side that created a store ends it

    @Test func droppingAClientMadeOverTheSDKsStoreLeavesTheStoreReady() async throws {
        let (_, emitter) = EventBus.makeBus()
        let store = ConfigStore(emitter: emitter)
        await store.setConfig(a)
        do {
            let refresher = SDKClient(store: store, configuration: settings(fetchesOnStart: false)) { [b] in b }
            withExtendedLifetime(refresher) {}
        }
        #expect(store.isReady, "the SDK's store stays ready")
        #expect(try await store.waitForReady().source == .live)
        #expect(await store.setConfig(b) == .updated, "and takes the SDK's configurations")
        let replacement = SDKClient(store: store, configuration: settings(fetchesOnStart: false)) { [a] in a }
        #expect(try await replacement.ready().source == .live, "a new refresher finds it ready")
        await replacement.shutdown()
    }

    @Test func droppingAClientThatMadeItsStoreShutsThatStoreDown() async throws {
        var client: SDKClient? = SDKClient(configuration: settings(), fetchService: rig.service([.config(a)]))
        let store = try #require(client?.store)
        client = nil
        await #expect(throws: ReadinessError.shutDown) { try await store.waitForReady() }
    }

    // MARK: A clock that ignores cancellation delays nothing

    @Test func readyWithATimeoutReturnsAsSoonAsReadyOnAClockThatIgnoresCancellation() async throws {
        let clock = CancellationIgnoringClock(base: rig.clock)
        let (_, emitter) = EventBus.makeBus()
        let store = ConfigStore(emitter: emitter)
        let waiter = Task { try await store.waitForReady(timeout: 4, clock: clock) }
        try await rig.clock.waitForSleepers(1)
        await store.setConfig(a)
        #expect(try await waiter.value.source == .live, "returned with the clock still at its start")
        #expect(rig.clock.now == 0)
    }

    @Test func refreshNowReturnsAsSoonAsItsFetchEndsOnAClockThatIgnoresCancellation() async throws {
        let service = MockConfigFetchService([.config(a), .config(b)], afterScript: .hang)
        var settings = settings()
        settings.clock = CancellationIgnoringClock(base: rig.clock)
        let (client, _) = SDKClient.makeClient(configuration: settings, fetchService: service)
        try await client.ready()
        try await rig.clock.waitForSleepers(1)  // the refresh timer, which will never return early
        #expect(try await client.refreshNow() == .updated, "returned with the clock still at its start")
        #expect(rig.clock.now == 0)
        // Shutdown is bounded on that clock too: the lifecycle waits for no timer.
        let report = await client.shutdown(timeout: 60)
        #expect(report.isComplete)
    }

    // MARK: A retry policy keeps its floor however it was set

    @Test(arguments: [Double.nan, -1, 0, .infinity, -.infinity, 1e-12])
    func aRetryPolicySetThroughItsPropertiesKeepsItsFloorAndCeiling(value: Double) {
        for keyPath in [\RetryPolicy.initialDelay, \.multiplier, \.maximumDelay, \.jitter] {
            var policy = RetryPolicy()
            policy[keyPath: keyPath] = value
            for failures in [1, 2, 10, 1_000, .max] {
                for random in [0, 0.5, 0.999_999] {
                    let delay = policy.delay(afterFailures: failures, random: random)
                    #expect(delay >= RetryPolicy.minimumDelay && delay <= RetryPolicy.longestDelay, "\(policy)")
                }
            }
        }
    }

    @Test func aRetryPolicyWhoseDelaysWereSetToNotANumberRetriesAtItsFloorsNotInALoop() async throws {
        var settings = settings()
        settings.retryPolicy.initialDelay = .nan
        settings.retryPolicy.maximumDelay = 0
        let service = MockConfigFetchService(
            [.failure(offline), .failure(offline)], afterScript: .hang, clock: rig.clock)
        let (client, _) = SDKClient.makeClient(configuration: settings, fetchService: service)
        try await rig.steps.wait { if case .fetchFailed(_, 1, _) = $0 { true } else { false } }
        guard case .fetchFailed(_, _, let retryIn)? = rig.steps.steps.last(where: { $0.isFetchFailure }) else {
            Issue.record("no failure reported")
            return
        }
        #expect(retryIn == 1, "nan is the default initial delay, not a retry at once")
        #expect(service.fetchCount == 1)
        await client.shutdown()
    }

    // MARK: The notifications the lifecycle observes

    /// A lifecycle that observes UIKit's foreground notification, as on iOS, on `center`.
    func lifecycleObservingForeground(on center: NotificationCenter?) -> ConfigLifecycle<SystemEvent> {
        var settings = settings(timeToLive: 10)
        settings.notificationCenter = center
        let (_, emitter) = EventBus.makeBus()
        return ConfigLifecycle(
            store: ConfigStore(emitter: emitter), fetchService: rig.service([.config(a)]),
            configuration: settings, triggers: [.uiKitForeground])
    }

    @Test func theLifecycleObservesTheNotificationCenterItIsGiven() async throws {
        let center = NotificationCenter()
        let lifecycle = lifecycleObservingForeground(on: center)
        let run = Task { await lifecycle.run() }
        try await lifecycle.store.waitForReady()
        NotificationCenter.default.post(name: AppLifecycleTrigger.uiKitForeground.name, object: nil)
        center.post(name: AppLifecycleTrigger.uiKitForeground.name, object: nil)
        try await rig.steps.wait { if case .refreshSkipped = $0 { true } else { false } }
        let skips = rig.steps.steps.filter { if case .refreshSkipped = $0 { true } else { false } }
        #expect(skips.count == 1, "only its own center's notification")
        run.cancel()
        await run.value
    }

    @Test func aLifecycleWithoutANotificationCenterObservesNothing() async throws {
        let lifecycle = lifecycleObservingForeground(on: nil)
        let run = Task { await lifecycle.run() }
        try await lifecycle.store.waitForReady()
        NotificationCenter.default.post(name: AppLifecycleTrigger.uiKitForeground.name, object: nil)
        lifecycle.handle(.willEnterForeground)  // what the SDK forwards
        try await rig.steps.wait { if case .refreshSkipped = $0 { true } else { false } }
        let skips = rig.steps.steps.filter { if case .refreshSkipped = $0 { true } else { false } }
        #expect(skips.count == 1, "only what the SDK forwarded")
        run.cancel()
        await run.value
    }
}

/// An SDK's own clock as SDKs write it for iOS 13, with `DispatchQueue.asyncAfter` and a continuation.
///
/// Its sleep returns only when its deadline comes, cancelled or not. Here on a test clock.
struct CancellationIgnoringClock: LifecycleClock {
    let base: TestClock

    var now: TimeInterval { base.now }

    func sleep(until deadline: TimeInterval) async throws {
        // A task of its own, which the caller's cancellation does not reach.
        let base = self.base
        await Task.detached { try? await base.sleep(until: deadline) }.value
    }
}

extension LifecycleDiagnostic {
    fileprivate var isFetchFailure: Bool {
        if case .fetchFailed = self { true } else { false }
    }
}
