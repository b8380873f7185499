import AnalyticsSDK
import SDKEventBusCore
import Testing

/// What code generic over the SDK's facades calls: the SDK's own protocol, beside the package's.
protocol UploadingSDK: CatalogSubscribing {
    /// Uploads the queue.
    func flush() async

    /// Forgets the queue and starts a new session.
    func reset()
}

extension Analytics: UploadingSDK {}

/// Uploads through code generic over the SDK's facades, which are `CatalogSubscribing`.
func upload(_ sdk: some UploadingSDK) async {
    await sdk.flush()
}

/// A facade keeps its own verbs: `Analytics` conforms to `CatalogSubscribing` beside its own
/// `flush()` (an upload), `events` and `reset()`, and each means one thing wherever it is called.
///
/// Code generic over `CatalogSubscribing` alone has no `flush()` at all, and the sequences are
/// `stream(…)`; Scripts/check-handle-idioms.sh pins both.
@Suite struct FacadeVerbsTests {
    let server = UploadServer()
    let analytics: Analytics

    init() {
        analytics = Analytics(uploader: server.uploader)
    }

    @Test func flushOnTheConcreteFacadeUploads() async {
        analytics.track("Signed Up")
        await analytics.flush()
        #expect(server.batches.value.map { $0.map(\.name) } == [["Signed Up"]])
    }

    @Test func flushInCodeGenericOverTheFacadesProtocolsUploads() async {
        analytics.track("Signed Up")
        await upload(analytics)
        #expect(server.batches.value.map { $0.map(\.name) } == [["Signed Up"]])
    }

    @Test func theFacadeSubscribesWithEveryVerbBesideItsOwnEventsAndReset() async {
        let received = Locked<[String]>([])
        let tracked = analytics.on(EventTrackedPayload.self, delivery: .immediate) {
            received.append("tracked \($0.tracked.name)")
        }
        analytics.once(.sessionStarted, delivery: .immediate) { _ in received.append("session") }
        let sequence = analytics.stream(of: EventTrackedPayload.self)
        #expect(analytics.listenerCount(for: .eventTracked) == 2)

        analytics.track("Signed Up")
        analytics.reset()  // the SDK's own: a new session
        await analytics.off(tracked)
        analytics.track("Checkout Started")
        await analytics.events.flush()  // `events` is the SDK's name for its bus

        #expect(received.value == ["tracked Signed Up", "session"])
        var iterator = sequence.makeAsyncIterator()
        #expect(await iterator.next()?.tracked.name == "Signed Up")
        #expect(await iterator.next()?.tracked.name == "Checkout Started")
    }

    @Test func awaitingDeliveryIsTheBusesFlush() async {
        let received = Locked<[String]>([])
        analytics.on(EventTrackedPayload.self) { received.append($0.tracked.name) }
        analytics.track("Signed Up")
        await analytics.bus.flush()
        #expect(received.value == ["Signed Up"])
        #expect(server.batches.value == [], "awaiting delivery uploads nothing")
    }
}
