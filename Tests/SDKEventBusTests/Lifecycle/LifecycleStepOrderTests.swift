import Foundation
import SDKEventBusTesting
import Testing

@testable import SDKEventBus
@testable import SDKEventBusConfig
@testable import SDKEventBusCore
@testable import SDKEventBusWire

/// A log of what happened, in order, from the lifecycle's diagnostics and immediate listeners.
final class OrderLog: Sendable {
    private let lines = LockedValue<[String]>([])

    var all: [String] { lines.withLock { $0 } }

    func append(_ line: String) {
        lines.withLock { $0.append(line) }
    }
}

/// Each lifecycle step is reported before what it causes.
///
/// A listener's callback, a `ready()` return: what the demo and an SDK's logs print then reads in
/// the order things happened.
@Suite struct LifecycleStepOrderTests {
    let clock = TestClock()
    let a = Fixtures.config(named: "A")
    let b = Fixtures.config(named: "B")

    /// A client whose diagnostics and immediate `.ready` and `.configUpdated` listeners write to
    /// one log.
    func client(
        _ script: [MockConfigFetchService.Outcome],
        policy: ReadinessPolicy = .cachedOrLive,
        log: OrderLog
    ) -> SDKClient {
        let (bus, emitter) = EventBus.makeBus()
        for event in [SystemEvent.ready, .configUpdated] {
            _ = bus.on(event, delivery: .immediate) { _ in log.append("event \(event.rawValue)") }
        }
        let settings = SDKConfiguration(
            refreshInterval: nil, retryPolicy: LifecycleRig.retryPolicy, readinessPolicy: policy,
            diagnostics: { step in log.append("\(step)") }
        ).on(clock)
        let service = MockConfigFetchService(script, afterScript: .hang, clock: clock)
        return SDKClient(store: ConfigStore(emitter: emitter), configuration: settings, fetchService: service)
    }

    @Test func aFetchedConfigurationIsReportedBeforeItsListenersRunAndReadyReturns() async throws {
        let log = OrderLog()
        let client = client([.config(a), .config(b)], log: log)
        try await client.ready()
        log.append("ready() returned")
        try await client.refreshNow()
        #expect(
            Array(log.all.prefix(7)) == [
                "fetch started",
                "fetched: first configuration, ready announced",
                "event ready",
                "ready() returned",
                "refresh requested (on demand)",
                "fetch started",
                "fetched: configuration changed",
            ])
        #expect(log.all.dropFirst(7).first == "event config.updated")
        await client.shutdown()
    }

    @Test func aFailedFirstFetchIsReportedBeforeTheDegradedStartItCauses() async throws {
        let log = OrderLog()
        let failure = MockConfigFetchService.SimulatedError("offline")
        let client = client([.failure(failure)], policy: .degraded(), log: log)
        try await client.ready()
        log.append("ready() returned")
        #expect(
            log.all == [
                "fetch started",
                "fetch failed (attempt 1): offline; retrying in 1.0 seconds",
                "ready degraded, without a configuration: offline",
                "event ready",
                "ready() returned",
            ])
        await client.shutdown()
    }

    @Test func aListenerOfAnAnnouncementReadsTheStatusOfWhatItAnnounces() async throws {
        let (bus, emitter) = EventBus.makeBus()
        let seen = LockedValue<ConfigSource?>(nil)
        let heard = Suspension()
        let clientBox = LockedValue<SDKClient?>(nil)
        _ = bus.on(.configUpdated, delivery: .immediate) { _ in
            seen.withLock { $0 = clientBox.withLock { $0 }?.status.source }
            heard.resume()
        }
        let settings = SDKConfiguration(refreshInterval: nil, initialConfig: a).on(clock)
        let service = MockConfigFetchService([.delayed(1, .config(b))], afterScript: .hang, clock: clock)
        let client = SDKClient(store: ConfigStore(emitter: emitter), configuration: settings, fetchService: service)
        clientBox.withLock { $0 = client }
        #expect(try await client.ready().source == .initial)
        try await clock.waitForSleepers(1)
        clock.advance(by: 1)
        await heard.wait()
        #expect(seen.withLock { $0 } == .live, "the status already names the live configuration")
        clientBox.withLock { $0 = nil }
        await client.shutdown()
    }
}

/// What the demo prints comes from these descriptions: each says what it means once, plainly.
@Suite struct LifecycleDescriptionTests {
    @Test func readinessNamesItsSourceAndAgeInOneParenthesis() {
        #expect(Readiness(source: .live, configAge: .zero).description == "ready (live)")
        #expect(
            Readiness(source: .cache, configAge: 1.04).description
                == "ready (cache, configuration 1.0 s old)")
        #expect(Readiness(source: .initial).description == "ready (initial)")
        #expect(
            Readiness(source: .degraded, error: MockConfigFetchService.SimulatedError("offline")).description
                == "ready (degraded): offline")
    }

    @Test func aStatusLineHasNoDoubledParentheses() {
        let status = SDKStatus(
            isReady: true, isShutDown: false, readiness: Readiness(source: .cache, configAge: 2),
            source: .cache, consecutiveFailures: 0)
        #expect(status.description == "ready (cache, configuration 2.0 s old), source: cache")
    }

    @Test func aRetryAfterOfZeroIsDescribedAsARetryAtOnce() {
        let error = ConfigFetchError(
            code: .httpStatus, statusCode: 503, retryAfter: .zero, reason: "the server answered 503")
        #expect(
            error.description
                == "config fetch failed (httpStatus 503): the server answered 503; the server allowed a retry at once")
        let later = ConfigFetchError(
            code: .httpStatus, statusCode: 429, retryAfter: 30, reason: "the server answered 429")
        #expect(later.description.hasSuffix("; the server asked to wait 30.0 seconds"))
    }
}
