import Foundation
import SDKEventBus
import SDKEventBusTesting
import Testing

/// The app's side of a client, `client.reader`: it waits, listens, reads and refreshes as the client
/// does, on the client's bus, and never keeps the client's lifecycle running after the SDK let go.
/// (That it cannot end readiness, steer the lifecycle or fire is a compile-time fact, checked by
/// Scripts/check-app-side.sh.)
@Suite(.timeLimit(.minutes(1))) struct ClientReaderTests {
    let rig = LifecycleRig()
    let a = Fixtures.config(named: "A")
    let b = Fixtures.config(named: "B")

    func settings(refreshInterval: TimeInterval? = 60) -> SDKConfiguration {
        var settings = SDKConfiguration(
            refreshInterval: refreshInterval, retryPolicy: LifecycleRig.retryPolicy, diagnostics: rig.steps.handler)
        settings.clock = rig.clock
        return settings
    }

    @Test func aReaderWaitsReadsAndListensAsItsClientDoesOnTheClientsBus() async throws {
        let (client, emitter) = SDKClient.makeClient(configuration: settings(), fetchService: rig.service([.config(a)]))
        let reader = client.reader
        #expect(reader.bus === client.bus)
        let events = EventRecorder(reader.bus, delivery: .immediate)
        let readiness = try await reader.ready()
        #expect(readiness.date == (try await client.ready()).date, "one readiness for the client and its reader")
        #expect(reader.config == a)
        #expect(reader.status.isReady && reader.status.source == .live)
        let subscription = reader.on(BucketingPayload.self, delivery: .immediate) { _ in }
        #expect(reader.bus.listenerCount(for: .bucketing) == 2)
        emitter.fire(BucketingPayload(experienceId: "e", variationId: "v", visitorId: "u"))
        try await events.waitUntil("the SDK's event, through the reader's bus") { $0.last?.event == .bucketing }
        await reader.off(subscription)
        await client.shutdown()
    }

    @Test func aReaderRefreshesOnDemandAndReadsTheNewConfiguration() async throws {
        let service = rig.service([.config(a), .config(b)])
        let (client, _) = SDKClient.makeClient(configuration: settings(refreshInterval: nil), fetchService: service)
        let reader = client.reader
        try await reader.ready()
        #expect(try await reader.refreshNow() == .updated)
        #expect(reader.config == b)
        #expect(client.config == b)
        await client.shutdown()
    }

    @Test func holdingAReaderDoesNotKeepTheClientOrItsLifecycleRunning() async throws {
        weak var weakClient: SDKClient?
        let reader: CatalogReader<SystemEvent>
        do {
            let (client, _) = SDKClient.makeClient(configuration: settings(), fetchService: rig.service([.config(a)]))
            try await client.ready()
            weakClient = client
            reader = client.reader
        }
        #expect(weakClient == nil, "the SDK let go of its client: the reader does not keep it")
        try await rig.steps.wait("the lifecycle stopped") { if case .stopped = $0 { true } else { false } }
        #expect(reader.config == a, "the last configuration stays readable")
        #expect(reader.status.isShutDown)
        await #expect(throws: ReadinessError.shutDown) { try await reader.ready() }
        await #expect(throws: ReadinessError.shutDown) { try await reader.refreshNow() }
    }

    @Test func aReaderSaysShutDownOnceTheSDKShutsItsClientDown() async throws {
        let (client, _) = SDKClient.makeClient(configuration: settings(), fetchService: rig.service([.config(a)]))
        let reader = client.reader
        try await reader.ready()
        await client.shutdown()
        await #expect(throws: ReadinessError.shutDown) { try await reader.ready() }
        await #expect(throws: ReadinessError.shutDown) { try await reader.refreshNow() }
        #expect(reader.config == a)
    }

    @Test func aReaderOfAClientOverTheSDKsStoreFollowsTheStoreOnceTheClientIsGone() async throws {
        let (_, emitter) = EventBus.makeBus()
        let store = ConfigStore(emitter: emitter)
        let reader = SDKClient(store: store, configuration: settings(), fetchService: rig.service([.hang])).reader
        try await rig.steps.wait("the lifecycle stopped") { if case .stopped = $0 { true } else { false } }
        await store.setConfig(a)
        #expect(try await reader.ready().source == .live, "the store the SDK keeps stays the SDK's to fill")
        #expect(reader.config == a)
    }

    #if canImport(Observation)
        @MainActor
        @Test func aReadersObservableStatusIsItsClients() async {
            guard #available(iOS 17, macOS 14, tvOS 17, watchOS 10, *) else { return }
            let (client, _) = SDKClient.makeClient(configuration: settings(), fetchService: rig.service([.hang]))
            #expect(client.reader.observableStatus === client.observableStatus)
            await client.shutdown()
        }
    #endif
}
