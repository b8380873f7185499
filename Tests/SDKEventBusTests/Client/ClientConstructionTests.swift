import Foundation
import SDKEventBus
import SDKEventBusTesting
import Testing

/// How an SDK builds a client around a bus it made first.
@Suite struct ClientConstructionTests {
    @MainActor
    @Test func clientMadeFromAnEmitterAnnouncesOnThatEmittersBus() async throws {
        let (bus, emitter) = EventBus.makeBus()
        let service = MockConfigFetchService([
            .config(ProjectConfig(accountId: "1", project: .init(id: "2", name: "P")))
        ])
        let sdk = SDKClient(store: ConfigStore(emitter: emitter), fetchService: service)
        #expect(sdk.bus === bus)

        let readies = Counter()
        let token = bus.on(.ready) { _ in readies.increment() }
        try await sdk.ready()
        await bus.flush()
        #expect(readies.count == 1, "the client's ready reached the bus the SDK made")
        await bus.off(token)
        await sdk.shutdown()
    }

    @Test func thePackagesHTTPServiceIsABuiltInConfigFetchService() async {
        func sdkClient(fetchingWith service: some ConfigFetchService) -> SDKClient {
            var settings = SDKConfiguration()
            settings.fetchesOnStart = false
            return SDKClient(configuration: settings, fetchService: service)
        }
        let url = URL(string: "https://cdn.example.com/project.json")!
        let sdk = sdkClient(fetchingWith: HTTPConfigFetchService<ProjectConfig>(url: url))
        #expect(!sdk.status.isReady)
        await sdk.shutdown()
    }
}
