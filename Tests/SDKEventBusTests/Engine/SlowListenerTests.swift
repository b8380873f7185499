import Foundation
import Testing

@testable import SDKEventBus
@_spi(Testing) @testable import SDKEventBusCore

/// A main-actor callback that runs past the bus's threshold is reported as a slow listener, named
/// by the file and line of its `on`, whether or not a timeline records.
///
/// Time is simulated: the callbacks advance a clock by their cost, and the main actor's job budget
/// reads that clock (``BusStorage/limitJobs(toNanoseconds:clock:)``), so nothing sleeps and a
/// callback's cost is exact whatever the machine's load.
@Suite struct SlowListenerTests {
    static let frame: UInt64 = 16_000_000
    static let cheap: UInt64 = 1_000
    static let hitch: UInt64 = 25_000_000

    @MainActor
    @Test func aSlowMainActorListenerIsNamedByTheFileAndLineOfItsOwnOnCall() async {
        let (bus, emitter, clock, reports) = Self.makeBus()
        bus.on(.apiQueueReleased) { _ in clock.advance(by: Self.cheap) }
        let line = #line + 1
        bus.on(.apiQueueReleased) { _ in clock.advance(by: Self.hitch) }
        bus.on(.apiQueueReleased) { _ in clock.advance(by: Self.cheap) }

        emitter.fire(SamplePayloads.all[2])
        await bus.flush()

        let slow = reports.slowListeners
        #expect(slow.count == 1, "\(reports.all)")
        #expect(slow.first?.file == "SDKEventBusTests/SlowListenerTests.swift")
        #expect(slow.first?.line == line)
        #expect(slow.first?.event == "api.queue.released")
        #expect(slow.first?.duration == Double(Self.hitch) / 1e9)
        #expect(reports.all.first?.description.contains("SDKEventBusTests/SlowListenerTests.swift:\(line)") == true)
    }

    @MainActor
    @Test func callbacksWithinTheThresholdAreNotReported() async {
        let (bus, emitter, clock, reports) = Self.makeBus()
        for _ in 0..<40 { bus.on(.apiQueueReleased) { _ in clock.advance(by: Self.frame / 40) } }
        bus.on(.apiQueueReleased) { _ in clock.advance(by: Self.frame - 1) }

        for _ in 0..<5 { emitter.fire(SamplePayloads.all[2]) }
        await bus.flush()

        #expect(reports.slowListeners.isEmpty, "\(reports.all)")
    }

    @MainActor
    @Test func theThresholdIsSettableAndNilReportsNone() async {
        let (bus, emitter, clock, reports) = Self.makeBus()
        #expect(bus.slowListenerThreshold == 0.016)
        bus.slowListenerThreshold = 0.005
        let line = #line + 1
        bus.on(.apiQueueReleased) { _ in clock.advance(by: 6_000_000) }
        emitter.fire(SamplePayloads.all[2])
        await bus.flush()
        #expect(reports.slowListeners.map(\.line) == [line], "named at its own threshold")

        bus.slowListenerThreshold = nil
        #expect(bus.slowListenerThreshold == nil)
        bus.on(.apiQueueReleased) { _ in clock.advance(by: Self.hitch) }
        emitter.fire(SamplePayloads.all[2])
        await bus.flush()
        #expect(reports.slowListeners.count == 1)
    }

    @MainActor
    @Test func aSlowListenerDeepInABurstIsNamedTheNextTimeItRuns() async {
        let (bus, emitter, clock, reports) = Self.makeBus()
        // Past the callbacks every job times alone: the spans have grown by then, and the first
        // hitch is found in a span of several.
        for _ in 0..<40 { bus.on(.apiQueueReleased) { _ in clock.advance(by: 10) } }
        let line = #line + 1
        bus.on(.apiQueueReleased) { _ in clock.advance(by: Self.hitch) }
        for _ in 0..<10 { bus.on(.apiQueueReleased) { _ in clock.advance(by: 10) } }

        emitter.fire(SamplePayloads.all[2])
        await bus.flush()
        #expect(reports.slowListeners.isEmpty, "found within a span of several callbacks: not named yet")

        emitter.fire(SamplePayloads.all[2])
        await bus.flush()
        #expect(reports.slowListeners.map(\.line) == [line])
    }

    @MainActor
    @Test func aSlowListenerIsNamedByItsOwnOnAfterItsBucketWasCompacted() async {
        let (bus, emitter, clock, reports) = Self.makeBus()
        var ended: [EventSubscription] = []
        for _ in 0..<40 { ended.append(bus.on(.apiQueueReleased) { _ in clock.advance(by: Self.cheap) }) }
        let line = #line + 1
        let slow = bus.on(.apiQueueReleased) { _ in clock.advance(by: Self.hitch) }
        bus.on(.apiQueueReleased) { _ in clock.advance(by: Self.cheap) }

        // Ending the first 40 leaves holes before two live entries: once they are more than half of
        // the bucket's 42 entries, it is compacted, and the slow listener's entry moves, with its
        // site, towards the front.
        for subscription in ended { await bus.off(subscription) }
        let entries = bus.storage.state.withLock { $0.registry.entry(of: slow)?.bucket.count } ?? 0
        #expect(entries < 42, "compacted")

        emitter.fire(SamplePayloads.all[2])
        await bus.flush()
        #expect(reports.slowListeners.map(\.line) == [line], "\(reports.all)")
        #expect(reports.slowListeners.first?.file == "SDKEventBusTests/SlowListenerTests.swift")
    }

    @MainActor
    @Test func aSlowListenerThatEndsItsOwnSubscriptionIsStillNamed() async {
        let (bus, emitter, clock, reports) = Self.makeBus()
        let own = LockedValue<EventSubscription?>(nil)
        let line = #line + 1
        let subscription = bus.on(.apiQueueReleased) { _ in
            clock.advance(by: Self.hitch)
            own.withLock { $0 }?.cancel()
        }
        own.withLock { $0 = subscription }

        emitter.fire(SamplePayloads.all[2])
        await bus.flush()
        #expect(reports.slowListeners.map(\.line) == [line], "\(reports.all)")
        #expect(bus.listenerCount(for: .apiQueueReleased) == 0)
    }

    @MainActor
    @Test func aListenerInThePlaceOfAnEndedOneIsNamedByItsOwnOn() async {
        let (bus, emitter, clock, reports) = Self.makeBus()
        bus.on(.apiQueueReleased) { _ in clock.advance(by: Self.cheap) }
        let ended = bus.on(.apiQueueReleased) { _ in clock.advance(by: Self.hitch) }
        // The ended entry is the bucket's last: it is trimmed, and the next one takes its place.
        await bus.off(ended)
        let line = #line + 1
        bus.on(.apiQueueReleased) { _ in clock.advance(by: Self.hitch) }

        emitter.fire(SamplePayloads.all[2])
        await bus.flush()
        #expect(reports.slowListeners.map(\.line) == [line], "\(reports.all)")
    }

    @Test func anImmediateListenerIsNeverReportedAsASlowMainActorListener() async {
        let (bus, emitter, clock, reports) = Self.makeBus()
        bus.on(.apiQueueReleased, delivery: .immediate) { _ in _ = clock.advance(by: Self.hitch) }
        emitter.fire(SamplePayloads.all[2])
        await bus.flush()
        #expect(reports.slowListeners.isEmpty)
    }

    /// A bus whose main-actor jobs read a simulated clock, and the diagnostics it reports.
    private static func makeBus() -> (EventBus, EventEmitter, SlowCallClock, DiagnosticLog) {
        let reports = DiagnosticLog()
        let (bus, emitter) = EventBus.makeBus { reports.append($0) }
        let clock = SlowCallClock()
        bus.storage.limitJobs(toNanoseconds: 2_000_000, clock: { clock.now })
        return (bus, emitter, clock, reports)
    }
}

/// A clock the callbacks advance by their simulated cost.
final class SlowCallClock: Sendable {
    private let time = LockedValue<UInt64>(0)

    var now: UInt64 { time.withLock { $0 } }

    @discardableResult
    func advance(by cost: UInt64) -> UInt64 {
        time.withLock { time in
            time += cost
            return time
        }
    }
}

/// The diagnostics a bus reported, in order.
final class DiagnosticLog: Sendable {
    private let reports = LockedValue<[BusDiagnostic]>([])

    func append(_ diagnostic: BusDiagnostic) { reports.withLock { $0.append(diagnostic) } }

    var all: [BusDiagnostic] { reports.withLock { $0 } }

    var slowListeners: [(event: String, file: String, line: Int, duration: TimeInterval)] {
        all.compactMap { diagnostic in
            guard case .slowListener(let event, let file, let line, let duration) = diagnostic else { return nil }
            return (event, file, line, duration)
        }
    }
}
