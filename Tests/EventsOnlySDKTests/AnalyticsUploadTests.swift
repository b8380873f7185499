import AnalyticsSDK
import SDKEventBusCore
import Testing

/// The SDK's own verbs: `flush()` uploads the queue, `reset()` and consent empty it.
@Suite struct AnalyticsUploadTests {
    let server = UploadServer()
    let analytics: Analytics

    init() {
        analytics = Analytics(uploader: server.uploader)
    }

    @Test func flushUploadsTheQueueAndFiresQueueFlushed() async {
        let flushed = Locked<[QueueFlushedPayload]>([])
        analytics.on(QueueFlushedPayload.self, delivery: .immediate) { flushed.append($0) }
        analytics.track("Signed Up", properties: ["plan": "pro"])
        analytics.screen("Home")

        await analytics.flush()

        #expect(
            server.batches.value == [
                [
                    TrackedEvent(
                        kind: .track, name: "Signed Up", properties: ["plan": "pro"], sessionID: analytics.sessionID),
                    TrackedEvent(kind: .screen, name: "Home", sessionID: analytics.sessionID),
                ]
            ])
        #expect(analytics.queuedEvents == [])
        #expect(flushed.value == [QueueFlushedPayload(eventCount: 2)])
    }

    @Test func anUploadFailureFiresUploadFailedAndKeepsTheQueue() async {
        let failed = Locked<[UploadFailedPayload]>([])
        analytics.on(UploadFailedPayload.self, delivery: .immediate) { failed.append($0) }
        server.isFailing.value = true
        analytics.track("Signed Up")
        analytics.track("Checkout Started")

        await analytics.flush()

        #expect(failed.value == [UploadFailedPayload(eventCount: 2, reason: "the analytics server is unreachable")])
        #expect(analytics.queuedEvents.map(\.name) == ["Signed Up", "Checkout Started"])

        server.isFailing.value = false
        analytics.track("Order Completed")
        await analytics.flush()
        #expect(server.batches.value.last?.map(\.name) == ["Signed Up", "Checkout Started", "Order Completed"])
        #expect(analytics.queuedEvents == [])
    }

    @Test func flushingAnEmptyQueueUploadsNothing() async {
        let announced = Locked<[AnalyticsEvent]>([])
        analytics.on(.queueFlushed, delivery: .immediate) { announced.append($0.event) }
        analytics.on(.uploadFailed, delivery: .immediate) { announced.append($0.event) }

        await analytics.flush()

        #expect(server.batches.value == [])
        #expect(announced.value == [])
    }

    @Test func eventsTrackedDuringAnUploadStayQueuedAndASecondFlushWaitsItsTurn() async {
        let upload = HeldUpload()
        let analytics = Analytics(uploader: upload.uploader)
        analytics.track("Signed Up")
        async let first: Void = analytics.flush()
        await upload.started()

        analytics.track("Checkout Started")
        await analytics.flush()  // another upload is under way: nothing is sent
        upload.release()
        await first

        #expect(upload.batches.value.map { $0.map(\.name) } == [["Signed Up"]])
        #expect(analytics.queuedEvents.map(\.name) == ["Checkout Started"])
    }

    @Test func aResetDuringAnUploadKeepsTheEventsTrackedAfterIt() async {
        let upload = HeldUpload()
        let analytics = Analytics(uploader: upload.uploader)
        analytics.track("Signed Up")
        async let first: Void = analytics.flush()
        await upload.started()

        analytics.reset()
        analytics.track("Signed In")
        upload.release()
        await first

        #expect(analytics.queuedEvents.map(\.name) == ["Signed In"])
    }

    @Test func resetForgetsTheQueueAndStartsANewSession() async {
        let sessions = Locked<[String]>([])
        analytics.on(SessionStartedPayload.self, delivery: .immediate, replayLatest: true) {
            sessions.append($0.sessionID)
        }
        let firstSession = analytics.sessionID
        analytics.track("Signed Up")

        analytics.reset()

        #expect(analytics.queuedEvents == [])
        #expect(analytics.sessionID != firstSession)
        #expect(sessions.value == [firstSession, analytics.sessionID])
        analytics.track("Signed In")
        #expect(analytics.queuedEvents.map(\.sessionID) == [analytics.sessionID])
    }

    @Test func denyingConsentEmptiesTheQueueAndStopsTracking() async {
        let tracked = Locked<[String]>([])
        analytics.on(EventTrackedPayload.self, delivery: .immediate) { tracked.append($0.tracked.name) }
        analytics.track("Signed Up")

        analytics.setConsent(.denied)
        analytics.track("Checkout Started")
        await analytics.flush()

        #expect(analytics.consent == .denied)
        #expect(analytics.queuedEvents == [])
        #expect(tracked.value == ["Signed Up"])
        #expect(server.batches.value == [])
    }
}

/// An uploader that holds its upload until the test releases it, and says when it started.
private final class HeldUpload: Sendable {
    let batches = Locked<[[TrackedEvent]]>([])
    private let (starts, startsContinuation) = AsyncStream.makeStream(of: Void.self)
    private let (releases, releasesContinuation) = AsyncStream.makeStream(of: Void.self)

    var uploader: Analytics.Uploader {
        { [self] batch in
            batches.append(batch)
            startsContinuation.yield()
            for await _ in releases { return }
        }
    }

    /// Returns once an upload has started.
    func started() async {
        for await _ in starts { return }
    }

    /// Lets the upload under way finish.
    func release() {
        releasesContinuation.yield()
    }
}
