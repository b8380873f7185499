import AnalyticsSDK
import SDKEventBusCore
import Testing

/// What a listener that subscribes late learns: the consent always, the session when it asks.
@Suite struct AnalyticsReplayTests {
    let analytics = Analytics(uploader: { _ in })

    @Test func aLateListenerReceivesTheCurrentConsentAndNoEarlierListenerHearsItAgain() async {
        let early = Locked<[Consent]>([])
        analytics.on(ConsentChangedPayload.self) { early.append($0.consent) }
        analytics.setConsent(.denied)
        await analytics.events.flush()

        let late = Locked<[Consent]>([])
        analytics.on(ConsentChangedPayload.self) { late.append($0.consent) }
        await analytics.events.flush()

        #expect(early.value == [.granted, .denied])
        #expect(late.value == [.denied])
    }

    @Test func aLateListenerReceivesTheCurrentSessionOnlyWhenItAsks() async {
        analytics.reset()
        let plain = Locked<[String]>([])
        let asking = Locked<[String]>([])
        analytics.on(SessionStartedPayload.self) { plain.append($0.sessionID) }
        analytics.on(SessionStartedPayload.self, replayLatest: true) { asking.append($0.sessionID) }
        await analytics.events.flush()

        #expect(plain.value == [])
        #expect(asking.value == [analytics.sessionID])
    }
}
