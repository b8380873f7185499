import Testing

@testable import SDKEventBus

@Suite struct DeliveryQueueTests {
    private func delivery(_ number: Int) -> DeliveryQueue.Delivery {
        DeliveryQueue.Delivery(payload: SamplePayloads.numbered(number), mark: UInt64(number))
    }

    @Test func firstFireSchedulesADrainAndLaterFiresJoinIt() {
        var queue = DeliveryQueue()
        let schedules = (0..<3).map { _ in queue.enqueue(delivery(0)) }
        #expect(schedules == [true, false, false])
        #expect(queue.isDrainScheduled)
    }

    @Test func batchHoldsEveryQueuedFireInFireOrder() {
        var queue = DeliveryQueue()
        for number in 0..<5 { _ = queue.enqueue(delivery(number)) }
        let batch = queue.takeBatch(listeners: .empty)
        #expect(batch?.deliveries.map(\.payload.number) == [0, 1, 2, 3, 4])
    }

    @Test func emptyQueueEndsTheDrainSoTheNextFireSchedulesOne() {
        var queue = DeliveryQueue()
        _ = queue.enqueue(delivery(0))
        let batch = queue.takeBatch(listeners: .empty)
        let empty = queue.takeBatch(listeners: .empty)
        #expect(batch != nil && empty == nil)
        #expect(!queue.isDrainScheduled)
        _ = queue.finishBatch(count: 1, recycling: [])
        let schedules = queue.enqueue(delivery(1))
        #expect(schedules)
    }

    @Test func fireDuringDeliveryJoinsTheRunningDrain() {
        var queue = DeliveryQueue()
        _ = queue.enqueue(delivery(0))
        _ = queue.takeBatch(listeners: .empty)
        let schedules = queue.enqueue(delivery(1))
        #expect(!schedules, "the drain in progress takes it in its next round")
        let next = queue.takeBatch(listeners: .empty)
        #expect(next?.deliveries.map(\.payload.number) == [1])
    }

    @Test func idleQueueReportsNothingOutstanding() {
        var queue = DeliveryQueue()
        #expect(queue.isIdle)
        _ = queue.enqueue(delivery(0))
        #expect(!queue.isIdle)
        _ = queue.takeBatch(listeners: .empty)
        _ = queue.finishBatch(count: 1, recycling: [])
        #expect(queue.isIdle)
    }
}
