import AnalyticsSDK
import SDKEventBusCore
import SDKEventBusCoreTesting
import Testing

/// The analytics SDK's tests with the core's testing part, the only part of the testing library an
/// events-only SDK takes: the catalog's contract, and events awaited with a recorder.
@Suite struct AnalyticsCatalogTests {
    @Test func analyticsCatalogKeepsItsContract() throws {
        let tracked = TrackedEvent(kind: .track, name: "Signed Up", sessionID: "s1")
        try CatalogConformance<AnalyticsEvent>(
            rawValues: [
                "session.started", "screen.viewed", "event.tracked", "queue.flushed", "upload.failed",
                "consent.changed",
            ],
            replayRules: [.consentChanged: .sticky, .sessionStarted: .latestOnRequest],
            samples: [
                .sessionStarted(SessionStartedPayload(sessionID: "s1")),
                .screenViewed(ScreenViewedPayload(name: "Home")),
                .eventTracked(EventTrackedPayload(tracked)), .queueFlushed(QueueFlushedPayload(eventCount: 1)),
                .uploadFailed(UploadFailedPayload(eventCount: 1, reason: "offline")),
                .consentChanged(ConsentChangedPayload(consent: .denied)),
            ],
            typedSamples: [
                SessionStartedPayload(sessionID: "s1"), ScreenViewedPayload(name: "Home"), EventTrackedPayload(tracked),
                QueueFlushedPayload(eventCount: 1), UploadFailedPayload(eventCount: 1, reason: "offline"),
                ConsentChangedPayload(consent: .denied),
            ]
        ).verify()
    }

    @Test func aRecorderAwaitsTheOutcomeOfAFlushStartedElsewhere() async throws {
        let analytics = Analytics(uploader: { _ in })
        let outcomes = EventRecorder(analytics, events: [.queueFlushed, .uploadFailed])
        analytics.track("Signed Up")
        analytics.track("Checkout Started")

        Task { await analytics.flush() }  // as an app's background task would

        #expect(try await outcomes.next() == [.queueFlushed(QueueFlushedPayload(eventCount: 2))])
        #expect(analytics.queuedEvents == [])
    }

    @Test func aRecorderOnTheFiringThreadSeesTheStickyConsentAndEachTrackBeforeItReturns() {
        let analytics = Analytics(consent: .denied, uploader: { _ in })
        let recorder = EventRecorder(analytics, events: [.consentChanged, .eventTracked], delivery: .immediate)
        #expect(recorder.events == [.consentChanged])  // replayed to the recorder: the consent is sticky

        analytics.setConsent(.granted)
        analytics.track("Signed Up")
        #expect(recorder.events == [.consentChanged, .consentChanged, .eventTracked])
    }
}
