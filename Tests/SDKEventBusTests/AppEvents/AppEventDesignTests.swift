import Foundation
import SDKEventBus
import Testing

/// The four app-level event buses teams write, each used in its own words on ``AppEventBus`` and
/// ``AppEventBusContainer``: public API only.
@Suite struct AppEventDesignTests {
    // MARK: 1. A lock-guarded bus of app-defined event types

    struct UserDidLogin: AppEvent {
        let userID: String
    }

    @MainActor final class ProfileViewModel {
        private(set) var shownUserID: String?
        private(set) var reloads = 0

        func reload(for userID: String) {
            shownUserID = userID
            reloads += 1
        }
    }

    @MainActor
    @Test func loginEventRefreshesTheProfileViewModelWithoutWeakSelf() async {
        let appBus = AppEventBus()
        var model: ProfileViewModel? = ProfileViewModel()
        weak let released = model
        appBus.on(UserDidLogin.self, owner: model!) { model, login in
            model.reload(for: login.userID)
        }

        await appBus.publishAndWait(UserDidLogin(userID: "42"))
        #expect(model?.shownUserID == "42")
        #expect(model?.reloads == 1)

        model = nil
        #expect(released == nil, "the bus holds the owner weakly")
        #expect(appBus.listenerCount(for: UserDidLogin.self) == 0)
        await appBus.publishAndWait(UserDidLogin(userID: "43"))
    }

    // MARK: 2. A per-event channel: one event type per signal, `Void` ones included

    struct DidRefresh: AppEvent {}

    struct Progress: AppEvent {
        let value: Int
    }

    @MainActor final class Badge: Sendable {
        @MainActor var cleared = 0
    }

    actor Archive {
        var refreshes = 0
        func count() { refreshes += 1 }
    }

    @MainActor
    @Test func voidEventFiredAndAwaitedHasRunEveryHandlerInEveryContext() async {
        let bus = AppEventBus()
        let badge = Badge()
        let archive = Archive()
        let immediateCalls = Counter()
        bus.on(DidRefresh.self, owner: badge) { badge, _ in badge.cleared += 1 }
        bus.on(DidRefresh.self, delivery: .isolated(to: archive)) { archive, _ in archive.count() }
        bus.on(DidRefresh.self, delivery: .immediate) { _ in immediateCalls.increment() }

        await bus.publishAndWait(DidRefresh())

        #expect(badge.cleared == 1)
        #expect(await archive.refreshes == 1)
        #expect(immediateCalls.count == 1)
        #expect(bus.listenerCount(for: DidRefresh.self) == 3)
    }

    @Test func eachSignalSubscriberReceivesValuesStrictlyInOrderThroughItsOwnStream() async {
        let bus = AppEventBus()
        let first = bus.stream(of: Progress.self, bufferingPolicy: .unbounded).map(\.value)
        let second = bus.stream(of: Progress.self, bufferingPolicy: .unbounded).map(\.value)
        for value in 0..<500 { bus.publish(Progress(value: value)) }
        bus.cancelAll()

        var firstValues: [Int] = []
        for await value in first { firstValues.append(value) }
        var secondValues: [Int] = []
        for await value in second { secondValues.append(value) }
        #expect(firstValues == Array(0..<500))
        #expect(secondValues == Array(0..<500))
    }

    // MARK: 3. A bus scoped by component

    enum Section: Hashable, Sendable {
        case checkout
        case profile
    }

    struct CartChanged: AppEvent {
        let items: Int
    }

    @MainActor final class CartSummary: Sendable {
        @MainActor var items = 0
    }

    @MainActor
    @Test func sectionScopedBusReleasedFromItsContainerEndsEverySubscription() async throws {
        let buses = AppEventBusContainer<Section>()
        let checkout = buses.bus(for: .checkout)
        #expect(buses.bus(for: .checkout) === checkout, "a lookup returns the registered bus")
        let summary = CartSummary()
        checkout.on(CartChanged.self, owner: summary) { summary, change in summary.items = change.items }
        let badgeUpdates = checkout.stream(of: CartChanged.self)
        let profile = buses.bus(for: .profile)
        profile.on(CartChanged.self) { _ in }

        await checkout.publishAndWait(CartChanged(items: 3))
        #expect(summary.items == 3)

        #expect(buses.release(.checkout))
        #expect(checkout.listenerCount(for: CartChanged.self) == 0)
        #expect(profile.listenerCount(for: CartChanged.self) == 1, "other sections keep theirs")
        var streamed: [Int] = []
        for await change in badgeUpdates { streamed.append(change.items) }
        #expect(streamed == [3], "the stream finished when its section was released")

        await checkout.publishAndWait(CartChanged(items: 9))
        #expect(summary.items == 3)
        #expect(buses.existingBus(for: .checkout) == nil)
        #expect(buses.bus(for: .checkout) !== checkout, "a released section gets a fresh bus")
    }

    @Test func registeringASecondBusForAScopeIsRefusedAndKeepsTheFirst() throws {
        let buses = AppEventBusContainer<String>()
        let first = AppEventBus(name: "settings")
        try buses.register(first, for: "settings")

        #expect(throws: AppEventBusContainerError.alreadyRegistered(scope: "settings")) {
            try buses.register(AppEventBus(name: "other"), for: "settings")
        }
        #expect(buses.existingBus(for: "settings") === first)
        #expect(
            String(describing: AppEventBusContainerError.alreadyRegistered(scope: "settings"))
                .contains("already registered for scope settings"))
        #expect(buses.scopes == ["settings"])
    }

    // MARK: 4. An all-events feed

    struct PlaylistShuffled: AppEvent {
        let order: [Int]
    }

    @Test func allEventsFeedShowsEveryEventInPublishOrderWithItsTimeAndSource() async {
        let appBus = AppEventBus()
        let feed = appBus.allEvents(bufferingPolicy: .unbounded)
        let before = Date()
        appBus.publish(UserDidLogin(userID: "7"))
        appBus.publish(PlaylistShuffled(order: [2, 1]), source: "player")
        appBus.cancelAll()

        var published: [PublishedEvent] = []
        for await event in feed { published.append(event) }
        #expect(published.count == 2)
        #expect((published.first?.event as? UserDidLogin)?.userID == "7")
        #expect(published.first?.source.hasPrefix("SDKEventBusTests/AppEventDesignTests.swift:") == true)
        #expect((published.last?.event as? PlaylistShuffled)?.order == [2, 1])
        #expect(published.last?.source == "player")
        #expect(published.allSatisfy { $0.date >= before })
        #expect(published.last?.description.contains("player: PlaylistShuffled") == true)
    }

    @Test func playlistShuffledEventsArriveAsABoundedStreamThatReportsWhatItDropped() async {
        let reports = DropReports()
        let appBus = AppEventBus(diagnostics: reports.record)
        let shuffles = appBus.stream(of: PlaylistShuffled.self, bufferingPolicy: .bufferingNewest(2))
        for seed in 0..<5 { appBus.publish(PlaylistShuffled(order: [seed])) }
        appBus.cancelAll()

        var orders: [[Int]] = []
        for await shuffled in shuffles { orders.append(shuffled.order) }
        #expect(orders == [[3], [4]], "the newest two, in order")
        #expect(reports.counts == [1, 2], "the first drop at once, the other two when the stream ended")
        #expect(reports.total == 3, "every dropped event is reported")
    }
}
