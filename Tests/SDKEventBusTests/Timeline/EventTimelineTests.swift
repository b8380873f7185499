import Foundation
import SDKEventBusTesting
import SDKEventBusTimeline
import Testing

@testable import SDKEventBus
@_spi(Testing) @testable import SDKEventBusCore

/// A bus's timeline records, once started, each fire and each delivery with the file and line of
/// its subscription, the bus's diagnostics and a client's lifecycle steps, in a bounded ring, and
/// records nothing while off.
@Suite struct EventTimelineTests {
    @Test func aTimelineIsOffUntilStartedAndTheEngineIsToldNothing() async {
        let (bus, emitter) = EventBus.makeBus()
        bus.on(.apiQueueReleased, delivery: .immediate) { _ in }
        emitter.fire(SamplePayloads.all[2])
        await bus.flush()
        #expect(!bus.timeline.isRecording)
        #expect(bus.timeline.records().isEmpty)
        #expect(bus.storage.timeline == nil)
    }

    @MainActor
    @Test func aTimelineRecordsEachFireAndEachDeliveryWithTheFileAndLineOfItsOn() async throws {
        let (bus, emitter) = EventBus.makeBus()
        let mainLine = #line + 1
        bus.on(.apiQueueReleased) { _ in }
        let immediateLine = #line + 1
        bus.on(.apiQueueReleased, delivery: .immediate) { _ in }
        bus.timeline.start()
        #expect(bus.timeline.isRecording)

        emitter.fire(SamplePayloads.all[2])
        await bus.flush()

        let records = bus.timeline.records()
        let fire = try #require(records.first { $0.kind == .fire })
        #expect(fire.event == "api.queue.released")
        // The main actor's thread: the main thread on Apple platforms; under swift test on Linux,
        // the thread that drains the main queue.
        #expect(fire.thread == "main thread" || fire.thread.hasPrefix("thread "))
        let deliveries = records.filter { $0.kind == .delivery }
        #expect(deliveries.map(\.fire) == [fire.fire, fire.fire])
        #expect(
            Set(deliveries.map(\.subscription)) == [
                "SDKEventBusTests/EventTimelineTests.swift:\(mainLine)",
                "SDKEventBusTests/EventTimelineTests.swift:\(immediateLine)",
            ])
        #expect(Set(deliveries.map(\.lane)) == ["main actor", "immediate"])
        for delivery in deliveries {
            #expect(delivery.time >= fire.time)
            #expect(abs(delivery.waited - (delivery.time - fire.time)) < 1e-6)
            #expect(delivery.duration >= 0)
        }
    }

    @Test func theRingKeepsTheLastRecordsOnly() async {
        let (bus, emitter) = EventBus.makeBus()
        bus.on(.apiQueueReleased, delivery: .immediate) { _ in }
        bus.timeline.start(keepingLast: 6)
        for count in 1...10 { emitter.fire(.apiQueueReleased(ApiQueueReleasedPayload(eventCount: count))) }
        let records = bus.timeline.records()
        #expect(records.count == 6)
        #expect(records.map(\.kind) == [.fire, .delivery, .fire, .delivery, .fire, .delivery])
        #expect(records.map(\.time) == records.map(\.time).sorted())
    }

    @Test func stoppingKeepsTheRecordsAndTellsTheEngineNothingMore() async {
        let (bus, emitter) = EventBus.makeBus()
        bus.on(.apiQueueReleased, delivery: .immediate) { _ in }
        bus.timeline.start()
        emitter.fire(SamplePayloads.all[2])
        bus.timeline.stop()
        #expect(bus.storage.timeline == nil)
        emitter.fire(SamplePayloads.all[2])
        #expect(bus.timeline.records().count == 2, "the fire and delivery before stop(), and nothing after")
        bus.timeline.start()
        #expect(bus.timeline.records().isEmpty, "a new recording starts empty")
    }

    @Test func startingAndStoppingWhileOtherThreadsFireIsSafe() async {
        let (bus, emitter) = EventBus.makeBus()
        let delivered = LockedValue(0)
        bus.on(.apiQueueReleased, delivery: .immediate) { _ in delivered.withLock { $0 += 1 } }
        let actor = TraceActor()
        bus.on(.apiQueueReleased, delivery: .isolated(to: actor)) { _, _ in }
        await withTaskGroup(of: Void.self) { group in
            for _ in 0..<4 {
                group.addTask { for _ in 0..<500 { emitter.fire(SamplePayloads.all[2]) } }
            }
            group.addTask {
                for round in 0..<200 {
                    if round.isMultiple(of: 2) { bus.timeline.start(keepingLast: 64) } else { bus.timeline.stop() }
                    _ = bus.timeline.records()
                }
            }
        }
        await bus.flush()
        #expect(delivered.withLock { $0 } == 2_000)
        #expect(bus.timeline.records().count <= 64)
    }

    @MainActor
    @Test func aSlowListenerAndABacklogAreRecordedAsDiagnostics() async throws {
        let (bus, emitter) = EventBus.makeBus()
        let clock = SlowCallClock()
        bus.storage.limitJobs(toNanoseconds: 2_000_000, clock: { clock.now })
        bus.on(.apiQueueReleased) { _ in clock.advance(by: 30_000_000) }
        bus.timeline.start()
        emitter.fire(SamplePayloads.all[2])
        await bus.flush()
        let slow = try #require(bus.timeline.records().first { $0.kind == .diagnostic })
        #expect(slow.name == "slow listener")
        #expect(slow.event == "api.queue.released")
        #expect(slow.duration == 0.03)
        #expect(slow.detail.contains("EventTimelineTests.swift"))
    }

    @Test func aClientsLifecycleStepsAreRecordedOnItsBusTimeline() async throws {
        let clock = TestClock()
        let lifecycle = LifecycleRecorder()
        let (bus, emitter) = EventBus.makeBus()
        bus.timeline.start()
        let client = SDKClient(
            store: ConfigStore(emitter: emitter),
            configuration: SDKConfiguration(
                refreshInterval: 60, retryPolicy: RetryPolicy(initialDelay: 1, jitter: 0),
                diagnostics: lifecycle.handler
            ).on(clock),
            fetchService: MockConfigFetchService(
                [.failure(MockConfigFetchService.SimulatedError("offline")), .config(Fixtures.projectConfig)],
                afterScript: .hang, clock: clock)
        )
        try await lifecycle.next("the first fetch failed") {
            if case .fetchFailed = $0 { true } else { false }
        }
        clock.advance(by: 1)
        try await client.ready(timeout: 30)
        await bus.flush()
        let records = bus.timeline.records()
        let steps = records.filter { [.step, .stepBegan, .stepEnded].contains($0.kind) }
        #expect(
            Array(steps.map { "\($0.kind) \($0.name)" }.prefix(6)) == [
                "stepBegan fetch", "stepEnded fetch", "step retry scheduled", "stepBegan fetch", "stepEnded fetch",
                "step ready",
            ])
        let ready = try #require(records.first { $0.kind == .fire && $0.event == "ready" })
        #expect(steps.count >= 6 && ready.time >= steps[4].time, "the step is recorded before the fire it causes")
        _ = await client.shutdown()
    }
}

/// The trace a timeline exports follows the Trace Event Format's rules, with an arrow from each
/// fire to each of its deliveries.
@Suite struct TraceEventFormatTests {
    @MainActor
    @Test func anExportedTraceFollowsTheTraceEventFormatsRules() async throws {
        let (bus, emitter) = EventBus.makeBus()
        bus.timeline.start()
        let actor = TraceActor()
        bus.on(.apiQueueReleased) { _ in }
        bus.on(.apiQueueReleased, delivery: .immediate) { _ in }
        bus.on(.apiQueueReleased, delivery: .isolated(to: actor)) { _, _ in }
        bus.on(.ready) { _ in }
        for _ in 0..<3 { emitter.fire(SamplePayloads.all[2]) }
        await Task.detached { emitter.fire(SamplePayloads.all[2]) }.value
        emitter.fire(.ready(ReadyPayload()))
        bus.storage.recordStep("fetch", detail: { "fetch started" }, phase: .begin)
        bus.storage.recordStep("ready", detail: { "ready" }, phase: .instant)
        bus.storage.recordStep("fetch", detail: { "fetched" }, phase: .end)
        bus.storage.recordStep("fetch", detail: { "fetch started (attempt 2)" }, phase: .begin)
        bus.storage.report(.backlog(lane: "main actor", pending: 1_000, highWaterMark: 1_000, oldestAge: 0.1))
        await bus.flush()

        let data = bus.timeline.traceJSON(processName: "TestSDK")
        #expect(TraceEventFormatRules.violations(of: data) == [])
        let events = try #require(
            (try JSONSerialization.jsonObject(with: data) as? [String: Any])?["traceEvents"] as? [[String: Any]])
        let deliveries = bus.timeline.records().filter { $0.kind == .delivery }
        #expect(events.filter { $0["ph"] as? String == "s" }.count == deliveries.count, "one arrow per delivery")
        let names = Set(
            events.filter { $0["name"] as? String == "thread_name" }.compactMap {
                ($0["args"] as? [String: Any])?["name"] as? String
            })
        #expect(names.isSuperset(of: ["main actor", "immediate", "actor TraceActor", "lifecycle", "diagnostics"]))
        #expect(names.filter { $0.hasPrefix("fire · ") }.count >= 1, "a track per firing thread")
        let fetch = events.first { $0["cat"] as? String == "lifecycle" && $0["ph"] as? String == "X" }
        #expect(fetch != nil, "a fetch is a slice")
    }

    @Test func theDemosTraceInTheGuideFollowsTheRules() throws {
        // `swift run SDKEventBusDemo --trace`, normalized as Scripts/render-trace.py keeps it; CI's docs
        // step checks that the demo still writes a trace of its shape.
        let fixture = URL(fileURLWithPath: #filePath).deletingLastPathComponent().deletingLastPathComponent()
            .deletingLastPathComponent().deletingLastPathComponent().appendingPathComponent(
                "Docs/seeing-what-the-bus-did.trace.json")
        let data = try Data(contentsOf: fixture)
        #expect(TraceEventFormatRules.violations(of: data) == [])
        let text = String(decoding: data, as: UTF8.self)
        #expect(text.contains("\"slow listener\""), "the guide's hitch")
    }

    @Test func theRulesRejectATraceThatBreaksThem() {
        let broken = """
            {"traceEvents": [
              {"name": "a", "ph": "X", "pid": 1, "tid": 1, "ts": 10, "dur": 10},
              {"name": "b", "ph": "X", "pid": 1, "tid": 1, "ts": 15, "dur": 10},
              {"name": "c", "ph": "X", "pid": 1, "tid": 1, "ts": 5, "dur": -1},
              {"name": "d", "ph": "s", "pid": 1, "tid": 1, "ts": 5, "id": 1},
              {"name": "e", "ph": "B", "pid": 1, "tid": 2, "ts": 1}
            ]}
            """
        let problems = TraceEventFormatRules.violations(of: Data(broken.utf8))
        #expect(problems.contains { $0.contains("overlaps") })
        #expect(problems.contains { $0.contains("goes back in time") })
        #expect(problems.contains { $0.contains("no dur") })
        #expect(problems.contains { $0.contains("flow 1 has no end") })
        #expect(problems.contains { $0.contains("unbalanced") })
        #expect(problems.contains { $0.contains("no thread_name") })
        #expect(problems.contains { $0.contains("no process_name") })
    }
}

/// An actor whose lane a trace shows.
private actor TraceActor {}
