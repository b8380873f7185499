import Foundation
import SDKEventBusTesting
import Testing

@testable import SDKEventBus
@testable import SDKEventBusConfig
@testable import SDKEventBusCore

/// The lifecycle piece by piece: an SDK's own fetch function, refreshes that start only after the
/// SDK's own first load, a pause and a resume, a stop that leaves the bus and the store going, every
/// decision reported, and the platforms' foreground and low-power notifications.
@Suite(.timeLimit(.minutes(1))) struct PieceByPieceLifecycleTests {
    let rig = LifecycleRig()
    let a = Fixtures.config(named: "A")
    let b = Fixtures.config(named: "B")

    /// The SDK's own networking: a function the client is handed as it is.
    final class FlagAPI: Sendable {
        private let served: LockedValue<(configs: [ProjectConfig], calls: Int)>

        init(serving configs: [ProjectConfig]) { served = LockedValue((configs, 0)) }

        var calls: Int { served.withLock { $0.calls } }

        func fetchConfig() async throws -> ProjectConfig {
            served.withLock { served in
                served.calls += 1
                return served.configs.count > 1 ? served.configs.removeFirst() : served.configs[0]
            }
        }
    }

    func settings(refreshInterval: TimeInterval? = 60, timeToLive: TimeInterval? = nil) -> SDKConfiguration {
        var settings = SDKConfiguration(
            refreshInterval: refreshInterval, retryPolicy: LifecycleRig.retryPolicy, timeToLive: timeToLive,
            diagnostics: rig.steps.handler)
        settings.clock = rig.clock
        return settings
    }

    // MARK: The SDK's own fetch function

    @Test func aFunctionOfTheSDKsOwnIsTheFetcher() async throws {
        let api = FlagAPI(serving: [a, b])
        let (client, _) = SDKClient.makeClient(configuration: settings(), fetch: api.fetchConfig)
        #expect(try await client.ready().source == .live)
        #expect(client.config == a)
        #expect(try await client.refreshNow() == .updated)
        #expect(client.config == b)
        #expect(api.calls == 2)
        await client.shutdown()
    }

    @Test func aClosureIsTheFetcherOfAClientOnAStoreTheSDKKeeps() async throws {
        let (_, emitter) = EventBus.makeBus()
        let store = ConfigStore(emitter: emitter)
        let client = SDKClient(store: store, configuration: settings()) { [a] in a }
        #expect(try await store.waitForReady().source == .live)
        #expect(client.config == a)
        await client.shutdown()
    }

    // MARK: When refreshing starts

    @Test func refreshStartsOnlyAfterTheSDKsOwnFirstLoadWhenTheLifecycleDoesNotFetchOnStart() async throws {
        let service = rig.service([.config(b)])
        var settings = settings()
        settings.fetchesOnStart = false
        let (_, emitter) = EventBus.makeBus()
        let store = ConfigStore(emitter: emitter)
        let client = SDKClient(store: store, configuration: settings, fetchService: service)
        #expect(service.fetchCount == 0, "nothing fetched at start")
        #expect(await store.setConfig(a, from: .initial) == .first)
        #expect(try await rig.clock.advanceToNextDeadline() == 60, "the first refresh, an interval later")
        try await rig.steps.wait { $0.appliedChange == .updated }
        #expect(service.fetchCount == 1, "the refresh is the lifecycle's first fetch")
        #expect(client.config == b)
        #expect(try await rig.clock.advanceToNextDeadline() == 60, "and every interval from then on")
        await client.shutdown()
    }

    @Test func aRefreshAskedForRunsBeforeTheSDKsFirstLoad() async throws {
        let service = rig.service([.config(a)])
        var settings = settings()
        settings.fetchesOnStart = false
        let (client, _) = SDKClient.makeClient(configuration: settings, fetchService: service)
        #expect(try await client.refreshNow() == .first)
        #expect(try await client.ready().source == .live)
        await client.shutdown()
    }

    // MARK: Pause, resume, stop

    @Test func pausedRefreshingHoldsTheDueRefreshAndResumingRunsIt() async throws {
        let service = rig.service([.config(a), .config(b)])
        let (client, _) = SDKClient.makeClient(configuration: settings(), fetchService: service)
        try await client.ready()
        client.pauseRefreshing()
        try await rig.steps.wait { if case .refreshPaused = $0 { true } else { false } }
        #expect(try await rig.clock.advanceToNextDeadline() == 60)
        try await rig.steps.wait("the due refresh held") { if case .refreshHeld = $0 { true } else { false } }
        #expect(service.fetchCount == 1, "held while paused")
        #expect(try await client.refreshNow() == .updated, "a refresh asked for runs anyway")
        client.resumeRefreshing()
        try await rig.steps.wait { if case .refreshResumed = $0 { true } else { false } }
        await client.shutdown()
    }

    @Test func resumingRefreshingRunsTheRefreshThatFellDueWhilePaused() async throws {
        let service = rig.service([.config(a), .config(b)])
        let (client, _) = SDKClient.makeClient(configuration: settings(), fetchService: service)
        try await client.ready()
        client.pauseRefreshing()
        #expect(try await rig.clock.advanceToNextDeadline() == 60)
        try await rig.steps.wait { if case .refreshHeld = $0 { true } else { false } }
        client.resumeRefreshing()
        try await rig.steps.wait("the held refresh applied") { $0.appliedChange == .updated }
        #expect(client.config == b)
        await client.shutdown()
    }

    @Test func stoppingTheLifecycleLeavesTheBusDeliveringAndTheStoreTakingConfigurations() async throws {
        let service = rig.service([.config(a)])
        let (bus, emitter) = EventBus.makeBus()
        let store = ConfigStore(emitter: emitter)
        let client = SDKClient(store: store, configuration: settings(), fetchService: service)
        try await client.ready()
        client.stopFetching()
        try await rig.steps.wait { $0.isStopped }
        await #expect(throws: CancellationError.self) { try await client.refreshNow() }
        #expect(rig.clock.sleeperCount == 0, "no refresh scheduled")
        let updates = EventRecorder(bus, delivery: .immediate)
        #expect(await store.setConfig(b) == .updated, "the store goes on")
        emitter.fire(.conversion(ConversionPayload(goalId: "g", visitorId: "v")))
        #expect(updates.events == [.ready, .configUpdated, .conversion], "the bus goes on (.ready is sticky)")
        #expect(client.config == b)
        #expect(service.fetchCount == 1)
        await client.shutdown()
    }

    // MARK: Every decision reported

    @Test func aForegroundVisitThatFindsTheConfigurationFreshIsReportedWithItsAgeAndTimeToLive() async throws {
        let service = rig.service([.config(a)])
        let (client, _) = SDKClient.makeClient(
            configuration: settings(refreshInterval: nil, timeToLive: 300), fetchService: service)
        try await client.ready()
        try await rig.steps.wait { $0.appliedChange == .first }
        rig.clock.advance(by: 120)
        client.handle(.willEnterForeground)
        let step = try await rig.steps.next { if case .refreshSkipped = $0 { true } else { false } }
        guard case .refreshSkipped(let age, let timeToLive) = step else { return }
        #expect(age == 120 && timeToLive == 300)
        #expect(service.fetchCount == 1, "nothing fetched")
        await client.shutdown()
    }

    @Test func aRefreshHeldByLowPowerModeIsReported() async throws {
        let service = rig.service([.config(a), .config(b)])
        let (client, _) = SDKClient.makeClient(configuration: settings(), fetchService: service)
        try await client.ready()
        client.handle(.lowPowerModeChanged(isEnabled: true))
        #expect(try await rig.clock.advanceToNextDeadline() == 60)
        try await rig.steps.wait("the held refresh") { if case .refreshHeld = $0 { true } else { false } }
        #expect(service.fetchCount == 1)
        await client.shutdown()
    }

    // MARK: The platforms' notifications

    /// Observers of a platform's triggers on a notification center of the test's own, forwarding to
    /// the client as the lifecycle's own observers do.
    func observe(_ triggers: [AppLifecycleTrigger], for client: SDKClient) -> (
        NotificationCenter, AppLifecycleObservers
    ) {
        let center = NotificationCenter()
        return (center, AppLifecycleObservers(center: center, triggers: triggers) { client.handle($0) })
    }

    @Test func theMacOSForegroundNotificationRefreshesAStaleConfiguration() async throws {
        let service = rig.service([.config(a), .config(b)])
        let (client, _) = SDKClient.makeClient(
            configuration: settings(refreshInterval: nil, timeToLive: 60), fetchService: service)
        try await client.ready()
        try await rig.steps.wait { $0.appliedChange == .first }
        let (center, observers) = observe([.appKitForeground, .lowPowerMode], for: client)
        rig.clock.advance(by: 61)
        // What AppKit posts as the app becomes active: NSApplication.didBecomeActiveNotification.
        center.post(name: Notification.Name("NSApplicationDidBecomeActiveNotification"), object: nil)
        try await rig.steps.wait { if case .refreshRequested(.foreground) = $0 { true } else { false } }
        try await rig.steps.wait { $0.appliedChange == .updated }
        withExtendedLifetime(observers) {}
        await client.shutdown()
    }

    @Test func theUIKitAndWatchKitForegroundNotificationsAreForwardedTheSameWay() async throws {
        let (client, _) = SDKClient.makeClient(
            configuration: settings(refreshInterval: nil, timeToLive: 300), fetchService: rig.service([.config(a)]))
        try await client.ready()
        try await rig.steps.wait { $0.appliedChange == .first }
        let (center, observers) = observe([.uiKitForeground, .watchKitForeground], for: client)
        center.post(name: Notification.Name("UIApplicationWillEnterForegroundNotification"), object: nil)
        center.post(name: Notification.Name("WKApplicationWillEnterForegroundNotification"), object: nil)
        try await rig.steps.wait(for: 2, "two fresh foreground visits") {
            if case .refreshSkipped = $0 { true } else { false }
        }
        withExtendedLifetime(observers) {}
        await client.shutdown()
    }

    @Test func eachPlatformObservesItsForegroundAndLinuxObservesNothing() {
        let names = AppLifecycleTrigger.platform.map(\.name.rawValue)
        #if os(macOS)
            #expect(
                names == ["NSApplicationDidBecomeActiveNotification", "NSProcessInfoPowerStateDidChangeNotification"])
        #elseif os(watchOS)
            #expect(names == ["WKApplicationWillEnterForegroundNotification"])
        #elseif canImport(UIKit)
            #expect(
                names == [
                    "UIApplicationWillEnterForegroundNotification", "NSProcessInfoPowerStateDidChangeNotification",
                ])
        #else
            #expect(names.isEmpty, "the SDK forwards its own hooks to handle(_:)")
        #endif
    }
}
