import ClashSDK
import Foundation
import SDKEventBusConfig
import SDKEventBusTesting
import Testing

/// An app that imports an SDK whose types carry the built-in catalog's names, beside the core and
/// the testing library: every name resolves to the SDK's own type, with no ambiguity.
@Suite struct ClashTests {
    struct FixedService: ConfigFetchService {
        func fetchLiveConfig() async throws -> ProjectConfig { ProjectConfig(revision: 1) }
    }

    @Test func theSDKsOwnNamesResolveBesideTheCore() async throws {
        let (bus, emitter): (EventBus, EventEmitter) = EventBus.makeBus()
        let received = EventRecorder<SystemEvent>(bus)
        emitter.fire(EventPayloadValue.ready(ReadyPayload()))
        await bus.flush()
        #expect(received.payloads == [.ready(ReadyPayload())])

        let store = ConfigStore(emitter: EventBus.makeBus().emitter)
        await store.setConfig(ProjectConfig(revision: 2))
        #expect(store.config?.revision == 2)
        let token: EventListenerToken = EventListenerToken(id: 1)
        #expect(token.id == 1)
    }

    /// Each name in a type position, where two modules declaring it would be "ambiguous for type
    /// lookup".
    @Test func everyNameIsTheSDKsOwnInATypePosition() {
        let names: [Any.Type] = [
            SystemEvent.self, EventPayloadValue.self, ReadyPayload.self, ConfigUpdatedPayload.self,
            ProjectConfig.self, EventBus.self, EventEmitter.self, ConfigStore.self, SDKClient.self,
            SDKConfiguration.self, EventListenerToken.self, (any ConfigFetchService).self,
        ]
        #expect(names.allSatisfy { String(reflecting: $0).contains("ClashSDK") })
    }

    @Test func theSDKsClientRunsOnTheCoresLifecycle() async throws {
        let client = SDKClient(configuration: SDKConfiguration(), fetchService: FixedService())
        let readiness = try await client.ready()
        #expect(readiness.source == .live)
        #expect(client.config?.revision == 1)
        await client.shutdown()
    }
}
