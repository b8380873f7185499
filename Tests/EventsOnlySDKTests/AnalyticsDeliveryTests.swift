import AnalyticsSDK
import SDKEventBusCore
import Testing

/// App code listening to the analytics SDK with the package's subscribing vocabulary, on the facade,
/// which conforms to `CatalogSubscribing`, and nothing else from the package.
@Suite struct AnalyticsDeliveryTests {
    let server = UploadServer()
    let analytics: Analytics

    init() {
        analytics = Analytics(uploader: server.uploader)
    }

    @Test @MainActor func mainActorListenersReceiveTheSDKsEventsInTheOrderTheyHappened() async {
        let received = Locked<[String]>([])
        analytics.on(EventTrackedPayload.self) { payload in
            MainActor.assertIsolated()
            received.append("tracked \(payload.tracked.name)")
        }
        analytics.on(ScreenViewedPayload.self) { payload in
            MainActor.assertIsolated()
            received.append("screen \(payload.name)")
        }
        analytics.track("Signed Up")
        analytics.screen("Home")
        analytics.track("Checkout Started")
        #expect(received.value == [])  // the test holds the main actor: tracking never waits for listeners

        await analytics.events.flush()
        #expect(received.value == ["tracked Signed Up", "screen Home", "tracked Checkout Started"])
    }

    @Test func immediateListenersHearATrackBeforeItReturns() {
        let received = Locked<[String]>([])
        analytics.on(EventTrackedPayload.self, delivery: .immediate) { received.append($0.tracked.name) }

        analytics.track("Signed Up")
        #expect(received.value == ["Signed Up"])
    }

    /// What the facade hands out of its event system is a `CatalogBus`, whose type has no public
    /// `fire`, and it keeps its emitter private: app code listens and only the SDK's verbs fire.
    ///
    /// This target is inside the package, where `package` members are visible, so the compile-time
    /// half is checked from outside it: Scripts/check-events-only.sh typechecks
    /// `analytics.events.fire(…)` and `analytics.emitter` as another package's code and requires
    /// both to be rejected.
    @Test func appCodeListensOnTheBusAndOnlyTheSDKsVerbsFire() {
        let bus: CatalogBus<AnalyticsEvent> = analytics.events
        let received = Locked<[AnalyticsEvent]>([])
        for event in AnalyticsEvent.allCases {
            bus.on(event, delivery: .immediate) { received.append($0.event) }
        }
        #expect(received.value == [.consentChanged])  // the sticky consent, replayed

        analytics.track("Signed Up")
        #expect(received.value == [.consentChanged, .eventTracked])
    }

    @Test @MainActor func cancellingASubscriptionStopsDeliveryEvenOfEventsAlreadyTracked() async {
        let received = Locked<[String]>([])
        let subscription = analytics.on(EventTrackedPayload.self) { received.append($0.tracked.name) }
        analytics.track("Signed Up")
        await analytics.events.flush()

        analytics.track("Checkout Started")  // fired; delivered once the test lets go of the main actor
        subscription.cancel()
        analytics.track("Order Completed")
        await analytics.events.flush()

        #expect(received.value == ["Signed Up"])
        #expect(analytics.listenerCount(for: .eventTracked) == 0)
    }

    @Test func offReturnsOnceTheListenerCanNoLongerRun() async {
        let received = Locked<[String]>([])
        let subscription = analytics.on(EventTrackedPayload.self) { received.append($0.tracked.name) }
        analytics.track("Signed Up")
        await analytics.events.flush()

        await analytics.off(subscription)
        analytics.track("Checkout Started")
        await analytics.events.flush()

        #expect(received.value == ["Signed Up"])
    }

    @Test func onceReceivesOnlyTheNextEvent() async {
        let received = Locked<[String]>([])
        analytics.once(.eventTracked) { payload in
            received.append(EventTrackedPayload(payload)?.tracked.name ?? "\(payload)")
        }

        analytics.track("Signed Up")
        analytics.track("Checkout Started")
        await analytics.events.flush()

        #expect(received.value == ["Signed Up"])
        #expect(analytics.listenerCount(for: .eventTracked) == 0)
    }

    @Test func anOwnerBoundSubscriptionEndsWhenItsOwnerIsReleased() async {
        final class CheckoutScreen: Sendable {
            let name = "Checkout"
        }
        let received = Locked<[String]>([])
        var screen: CheckoutScreen? = CheckoutScreen()
        analytics.on(.eventTracked, owner: screen!) { screen, payload in
            received.append("\(screen.name): \(EventTrackedPayload(payload)?.tracked.name ?? "\(payload)")")
        }
        analytics.track("Coupon Applied")
        await analytics.events.flush()

        screen = nil
        analytics.track("Order Completed")
        await analytics.events.flush()

        #expect(received.value == ["Checkout: Coupon Applied"])
        #expect(analytics.listenerCount(for: .eventTracked) == 0)
    }

    @Test func listenerCountCountsTheLiveSubscriptionsOfAnEvent() {
        #expect(analytics.listenerCount(for: .uploadFailed) == 0)

        let banner = analytics.on(.uploadFailed) { _ in }
        analytics.on(UploadFailedPayload.self, delivery: .immediate) { _ in }
        #expect(analytics.listenerCount(for: .uploadFailed) == 2)
        #expect(analytics.listenerCount(for: .queueFlushed) == 0)

        banner.cancel()
        #expect(analytics.listenerCount(for: .uploadFailed) == 1)
    }
}
