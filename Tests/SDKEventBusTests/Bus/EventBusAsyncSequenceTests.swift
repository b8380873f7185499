import Testing

@testable import SDKEventBus
@testable import SDKEventBusConfig
@testable import SDKEventBusCore
@testable import SDKEventBusWire

@Suite(.timeLimit(.minutes(2))) struct EventBusAsyncSequenceTests {
    let bus: EventBus
    let emitter: EventEmitter

    init() {
        (bus, emitter) = EventBus.makeBus()
    }

    @Test func sequenceReceivesEventsInFireOrderAcrossItsEventsFromItsCreation() async {
        let stream = bus.stream([.bucketing, .conversion, .apiQueueReleased])
        for payload in SamplePayloads.all.reversed() { emitter.fire(payload) }
        await bus.flush()
        emitter.shutdown()
        var received: [SystemEvent] = []
        for await payload in stream { received.append(payload.event) }
        #expect(received == [.conversion, .bucketing, .apiQueueReleased])
    }

    @Test func typedSequenceYieldsPayloadStructs() async {
        let stream = bus.stream(of: ApiQueueReleasedPayload.self)
        for number in 0..<3 { emitter.fire(SamplePayloads.numbered(number)) }
        await bus.flush()
        emitter.shutdown()
        var counts: [Int] = []
        for await payload in stream { counts.append(payload.eventCount) }
        #expect(counts == [0, 1, 2])
    }

    @Test func cancellingTheConsumingTaskEndsTheSubscription() async {
        let bus = self.bus
        let (received, receiving) = AsyncStream.makeStream(of: Void.self)
        let consumer = Task {
            for await _ in bus.stream([.ready, .bucketing]) { receiving.yield() }
        }
        emitter.fire(.ready(ReadyPayload()))  // sticky: the sequence gets it even if it subscribes later
        var consumerProgress = received.makeAsyncIterator()
        _ = await consumerProgress.next()  // the consumer is iterating its sequence
        #expect(bus.listenerCount(for: .bucketing) == 1)
        consumer.cancel()
        await consumer.value
        #expect(bus.listenerCount(for: .ready) == 0)
        #expect(bus.listenerCount(for: .bucketing) == 0)
    }

    @Test func droppingTheSequenceEndsTheSubscription() async {
        do {
            let stream = bus.stream(.conversion)
            #expect(bus.listenerCount(for: .conversion) == 1)
            _ = stream
        }
        #expect(bus.listenerCount(for: .conversion) == 0)
    }

    @Test func droppingThousandsOfSequencesLeavesNoEntryBehind() async {
        for _ in 0..<5_000 {
            _ = bus.stream([.conversion, .bucketing])
        }
        #expect(bus.listenerCount(for: .conversion) == 0)
        #expect(bus.storage.footprint.entries == 0)
    }

    @Test func busShutdownFinishesTheSequence() async {
        let stream = bus.stream(.ready)
        let consumer = Task {
            var count = 0
            for await _ in stream { count += 1 }
            return count
        }
        emitter.shutdown()
        #expect(await consumer.value == 0)
    }

    @Test func sequenceCreatedAfterShutdownFinishesAtOnce() async {
        emitter.shutdown()
        var iterator = bus.stream(.ready).makeAsyncIterator()
        #expect(await iterator.next() == nil)
    }

    @Test func bufferingNewestKeepsOnlyTheLatestEventsForASlowConsumer() async {
        let stream = bus.stream(.apiQueueReleased, bufferingPolicy: .bufferingNewest(2))
        for number in 0..<5 { emitter.fire(SamplePayloads.numbered(number)) }
        await bus.flush()
        emitter.shutdown()
        var numbers: [Int] = []
        for await payload in stream { numbers.append(payload.number!) }
        #expect(numbers == [3, 4])
    }

    @Test func bufferingOldestKeepsTheFirstEventsForASlowConsumer() async {
        let stream = bus.stream(.apiQueueReleased, bufferingPolicy: .bufferingOldest(2))
        for number in 0..<5 { emitter.fire(SamplePayloads.numbered(number)) }
        await bus.flush()
        emitter.shutdown()
        var numbers: [Int] = []
        for await payload in stream { numbers.append(payload.number!) }
        #expect(numbers == [0, 1])
    }

    @Test func sequenceCanReplayTheLatestConfigUpdate() async {
        emitter.fire(.configUpdated(ConfigUpdatedPayload(snapshot: Fixtures.config(named: "A"))))
        let stream = bus.stream(.configUpdated, replayLatest: true)
        await bus.flush()
        emitter.shutdown()
        var received: [EventPayloadValue] = []
        for await payload in stream { received.append(payload) }
        #expect(received == [.configUpdated(ConfigUpdatedPayload(snapshot: Fixtures.config(named: "A")))])
    }

    @Test func consumerOffTheMainActorReceivesEvents() async {
        let stream = bus.stream(of: ConversionPayload.self)
        let consumer = Task.detached {
            var received: [ConversionPayload] = []
            for await payload in stream { received.append(payload) }
            return received
        }
        emitter.fire(ConversionPayload(goalId: "g", visitorId: "v"))
        await bus.flush()
        emitter.shutdown()
        #expect(await consumer.value == [ConversionPayload(goalId: "g", visitorId: "v")])
    }

    // MARK: Every drop is reported

    @Test func everyEventASequenceDropsIsReportedUnderItsOwnEvent() async {
        let reports = DropReports()
        let (bus, emitter) = EventBus.makeBus(diagnostics: reports.record)
        let stream = bus.stream([.bucketing, .conversion], bufferingPolicy: .bufferingOldest(1))
        for _ in 0..<3 { emitter.fire(SamplePayloads.sample(.bucketing)) }
        for _ in 0..<2 { emitter.fire(SamplePayloads.sample(.conversion)) }
        #expect(reports.counts == [1], "the first drop is reported at once")
        emitter.shutdown()
        var received: [SystemEvent] = []
        for await payload in stream { received.append(payload.event) }
        #expect(received == [.bucketing])
        #expect(reports.events == ["bucketing", "bucketing", "conversion"])
        #expect(reports.counts == [1, 1, 2], "the rest when the sequence ended, per event")
    }

    @Test func aStalledConsumerIsReportedOncePer256DropsAndTheRestWhenTheSequenceEnds() async {
        let reports = DropReports()
        let (bus, emitter) = EventBus.makeBus(diagnostics: reports.record)
        let values = bus.stream([.apiQueueReleased], bufferingPolicy: .bufferingOldest(1))
        for value in 0...600 { emitter.fire(ApiQueueReleasedPayload(eventCount: value)) }
        #expect(reports.counts == [1, 256, 256])
        emitter.shutdown()
        var received: [Int] = []
        for await value in values {
            if case .apiQueueReleased(let released) = value { received.append(released.eventCount) }
        }
        #expect(received == [0])
        #expect(reports.counts == [1, 256, 256, 87])
        #expect(reports.total == 600, "every one of the 600 dropped values is reported")
    }

    @Test func aDropAfterTheSequenceEndedIsReportedAtOnce() async {
        let reports = DropReports()
        let reporter = DropReporter(policy: .bufferingOldest(1), diagnostics: reports.record)
        reporter.record("bucketing")
        reporter.record("bucketing")
        reporter.finish()
        reporter.record("bucketing")  // a drop racing the end of the sequence
        #expect(reports.counts == [1, 1, 1])
    }
}
