import Foundation
import Testing

@testable import SDKEventBusAppEvents
@testable import SDKEventBusCore

/// An app bus reads the clock for each publish only while an all-events feed is open, and stops
/// once the last one has ended, by whatever path (issue 35: the flag that said a feed had been asked
/// for was never cleared, so after the first `allEvents()` every publish read the clock for good).
///
/// Checked through the bus's status, which is what `publish` reads to decide, not by timing.
@Suite(.timeLimit(.minutes(1))) struct AllEventsFeedTests {
    struct Ping: AppEvent {
        let number: Int
    }

    @Test func publishesStopReadingTheClockOnceTheLastAllEventsFeedEnds() async {
        let bus = AppEventBus()
        #expect(!bus.status.hasOpenFeed, "no feed, no clock")
        var first: AsyncStream<PublishedEvent>? = bus.allEvents()
        let second = bus.allEvents(bufferingPolicy: .unbounded)
        #expect(bus.status.hasOpenFeed)
        first = nil
        #expect(bus.status.hasOpenFeed, "one feed is still open")
        #expect(bus.status.openFeeds == 1)

        let before = Date()
        bus.publish(Ping(number: 1))
        bus.cancelAll()
        #expect(!bus.status.hasOpenFeed, "the last feed ended")
        #expect(bus.status.openFeeds == 0)
        var published: [PublishedEvent] = []
        for await event in second { published.append(event) }
        #expect(published.count == 1)
        #expect(published.allSatisfy { $0.date >= before }, "the feed's events kept their time")
        withExtendedLifetime(first) {}
    }

    /// Every way a feed ends.
    enum Ending: String, CaseIterable, CustomStringConvertible, Sendable {
        /// The consumer lets the stream go.
        case dropped
        /// The task that consumes it is cancelled.
        case consumerCancelled
        /// The bus ends every subscription.
        case cancelAll
        /// A container releases the bus's scope.
        case scopeReleased

        var description: String { rawValue }
    }

    @Test(arguments: Ending.allCases)
    func aFeedStopsTheClockWhenItEnds(by ending: Ending) async {
        let container = AppEventBusContainer<String>()
        let bus = container.bus(for: "feed")
        var feed: AsyncStream<PublishedEvent>? = bus.allEvents()
        #expect(bus.status.hasOpenFeed)
        switch ending {
        case .dropped:
            feed = nil
        case .consumerCancelled:
            let consumer = Task { [feed] in
                guard let feed else { return }
                for await _ in feed {}
            }
            feed = nil
            consumer.cancel()
            await consumer.value
        case .cancelAll:
            bus.cancelAll()
        case .scopeReleased:
            container.release("feed")
        }
        #expect(!bus.status.hasOpenFeed)
        #expect(bus.status.openFeeds == 0)
        withExtendedLifetime(feed) {}
    }

    /// A feed asked for on a released bus ends at once: it never makes publishes read the clock.
    @Test func aFeedOfAReleasedBusNeverStartsTheClock() {
        let container = AppEventBusContainer<String>()
        let bus = container.bus(for: "feed")
        container.release("feed")
        let feed = bus.allEvents()
        #expect(!bus.status.hasOpenFeed)
        withExtendedLifetime(feed) {}
    }

    /// A feed opened after the last one ended starts the clock again.
    @Test func aFeedOpenedAgainStartsTheClockAgain() async {
        let bus = AppEventBus()
        var feed: AsyncStream<PublishedEvent>? = bus.allEvents()
        feed = nil
        #expect(!bus.status.hasOpenFeed)
        feed = bus.allEvents(bufferingPolicy: .unbounded)
        #expect(bus.status.hasOpenFeed)
        let before = Date()
        bus.publish(Ping(number: 2), source: "again")
        bus.cancelAll()
        var published: [PublishedEvent] = []
        guard let feed else { return }
        for await event in feed { published.append(event) }
        #expect(published.map(\.source) == ["again"])
        #expect(published.allSatisfy { $0.date >= before })
    }
}
