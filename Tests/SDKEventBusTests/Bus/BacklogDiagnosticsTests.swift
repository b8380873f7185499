import Foundation
import SDKEventBus
import Testing

/// Backpressure is visible: when a listener's executor stalls, its queue's growth is reported
/// through the bus's diagnostics hook, with the pending count, the high-water mark and the age of
/// the oldest fire.
@Suite struct BacklogDiagnosticsTests {
    /// Collects the backlog reports of one bus.
    final class Reports: Sendable {
        /// One backlog report's facts.
        struct Backlog {
            let lane: String
            let pending: Int
            let highWaterMark: Int
            let oldestAge: TimeInterval
            let description: String
        }

        private let reports = LockedValue<[Backlog]>([])
        func record(_ diagnostic: BusDiagnostic) {
            guard case .backlog(let lane, let pending, let highWaterMark, let oldestAge) = diagnostic else { return }
            let backlog = Backlog(
                lane: lane, pending: pending, highWaterMark: highWaterMark, oldestAge: oldestAge,
                description: "\(diagnostic)")
            reports.withLock { $0.append(backlog) }
        }
        var all: [Backlog] { reports.withLock { $0 } }
    }

    static let conversion = EventPayloadValue.conversion(ConversionPayload(goalId: "g", visitorId: "v"))

    @MainActor
    @Test func aStalledMainActorsQueueIsReportedAtOneThousandThenAtEachDoubling() async {
        let reports = Reports()
        let (bus, emitter) = EventBus.makeBus(diagnostics: reports.record)
        let token = bus.on(.conversion) { _ in }

        // This test holds the main actor: nothing is delivered while it fires.
        for _ in 0..<2_100 { emitter.fire(Self.conversion) }
        #expect(reports.all.map(\.pending) == [1_000, 2_000])
        #expect(reports.all.allSatisfy { $0.lane == "main actor" && $0.highWaterMark == $0.pending })
        #expect(reports.all.allSatisfy { $0.oldestAge >= .zero })
        #expect(reports.all.first?.description.contains("1000 fires waiting for the main actor lane") == true)

        await bus.flush()
        for _ in 0..<1_000 { emitter.fire(Self.conversion) }
        #expect(reports.all.count == 3, "after catching up, a new backlog is reported again from 1,000")
        #expect(reports.all.last?.pending == 1_000)
        #expect(reports.all.last?.highWaterMark == 2_100, "the high-water mark remembers the worst")
        await bus.off(token)
    }

    actor Stalled {
        /// Runs `body` isolated to the actor, which holds it for that long.
        func hold(_ body: @Sendable () -> Void) { body() }
    }

    @Test func aStalledActorsQueueIsReportedWithTheActorsLane() async {
        let reports = Reports()
        let (bus, emitter) = EventBus.makeBus(diagnostics: reports.record)
        let stalled = Stalled()
        let token = bus.on(.conversion, delivery: .isolated(to: stalled)) { _, _ in }
        await stalled.hold {
            for _ in 0..<1_000 { emitter.fire(Self.conversion) }
        }
        #expect(reports.all.map(\.pending) == [1_000])
        #expect(reports.all.first?.lane == "actor Stalled")
        await bus.flush()
        await bus.off(token)
    }

    /// A lane that queues and keeps up is never reported.
    ///
    /// The main-actor lane queues every fire while the test holds the main actor: 999 at a time, one
    /// below the threshold, drained in between, five times over (4,995 fires in all). This fails if a
    /// report came below the threshold, or if the count did not start again after each catch-up.
    @MainActor
    @Test func aQueueThatKeepsUpIsNeverReported() async {
        let reports = Reports()
        let (bus, emitter) = EventBus.makeBus(diagnostics: reports.record)
        let delivered = Counter()
        let token = bus.on(.conversion) { _ in delivered.increment() }
        for round in 1...5 {
            for _ in 0..<999 { emitter.fire(Self.conversion) }
            #expect(
                delivered.count == (round - 1) * 999, "the fires wait in the queue while the test holds the main actor")
            await bus.flush()
            #expect(delivered.count == round * 999)
        }
        #expect(reports.all.isEmpty, "\(reports.all)")
        await bus.off(token)
    }
}
