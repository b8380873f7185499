import Testing

@testable import SDKEventBus
@testable import SDKEventBusConfig
@testable import SDKEventBusCore
@testable import SDKEventBusWire

/// Many tasks firing, subscribing and unsubscribing at once; every rule still holds.
///
/// Each task yields now and then: its operations rarely suspend, and four tasks that never yield
/// hold both threads of CI's cooperative pool for their whole run, stalling every suite running in
/// parallel (past their 30-second bounds, under the thread sanitizer).
@Suite(.timeLimit(.minutes(2))) struct EventBusStressTests {
    static let producers = 4
    static let firesPerProducer = 2_500
    static let stableListeners = 10
    static let churnRounds = 500

    /// A fire's producer and its sequence number within that producer, packed into one `Int`.
    static func encode(producer: Int, sequence: Int) -> Int { producer * 1_000_000 + sequence }
    static func decode(_ number: Int) -> (producer: Int, sequence: Int) { (number / 1_000_000, number % 1_000_000) }

    @Test func concurrentFiresWithChurnAreDeliveredInOrderExactlyOnce() async throws {
        let (bus, emitter) = EventBus.makeBus()
        let stable = await MainActor.run { (0..<Self.stableListeners).map { _ in Recorder<Int>() } }
        for recorder in stable {
            _ = bus.on(.apiQueueReleased) { recorder.append($0.number!) }
        }
        let churned = await MainActor.run { (0..<Self.churnRounds).map { _ in Recorder<Int>() } }

        await withTaskGroup(of: Void.self) { group in
            for producer in 0..<Self.producers {
                group.addTask {
                    for sequence in 0..<Self.firesPerProducer {
                        if sequence % 64 == 0 { await Task.yield() }
                        emitter.fire(SamplePayloads.numbered(Self.encode(producer: producer, sequence: sequence)))
                    }
                }
            }
            group.addTask {
                for recorder in churned {
                    await Task.yield()
                    let token = bus.on(.apiQueueReleased) { recorder.append($0.number!) }
                    _ = bus.on(.conversion) { _ in }
                    await bus.off(token)
                }
            }
        }
        await bus.flush()

        let total = Self.producers * Self.firesPerProducer
        let logs = await MainActor.run { stable.map(\.items) }
        let reference = logs[0]
        #expect(reference.count == total, "every listener present throughout receives every fire")
        #expect(Set(reference).count == total, "exactly once")
        for log in logs.dropFirst() {
            #expect(log == reference, "all listeners see the same order")
        }
        var nextSequence = [Int](repeating: 0, count: Self.producers)
        for number in reference {
            let (producer, sequence) = Self.decode(number)
            #expect(sequence == nextSequence[producer], "each producer's fires arrive in the order it fired them")
            nextSequence[producer] = sequence + 1
        }

        // A churned listener receives a gap-free-or-not slice of the global order, with no duplicate.
        let position = Dictionary(uniqueKeysWithValues: reference.enumerated().map { ($1, $0) })
        for log in await MainActor.run(body: { churned.map(\.items) }) {
            let positions = log.compactMap { position[$0] }
            #expect(positions.count == log.count)
            #expect(positions == positions.sorted() && Set(positions).count == positions.count)
        }
        #expect(bus.listenerCount(for: .apiQueueReleased) == Self.stableListeners)
        #expect(bus.listenerCount(for: .conversion) == Self.churnRounds)
    }

    @Test func subscribeUnsubscribeCyclesFromFourTasksLeaveNoEntryBehind() async {
        let (bus, _) = EventBus.makeBus()
        let baseline = bus.storage.footprint.entries
        await withTaskGroup(of: Void.self) { group in
            for task in 0..<4 {
                group.addTask {
                    for index in 0..<25_000 {
                        if index % 64 == 0 { await Task.yield() }
                        let token = bus.on(SystemEvent.allCases[(task + index) % 10]) { _ in }
                        await bus.off(token)
                    }
                }
            }
        }
        #expect(bus.storage.footprint.entries == baseline)
        for event in SystemEvent.allCases {
            #expect(bus.listenerCount(for: event) == 0)
        }
    }
}
