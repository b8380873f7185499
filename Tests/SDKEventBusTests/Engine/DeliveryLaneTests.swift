import Testing

@testable import SDKEventBusConfig
@testable import SDKEventBusCore
@testable import SDKEventBusWire

/// A delivery lane is read and written on every fire: it holds what delivery needs, and nothing
/// that only tests use.
@Suite struct DeliveryLaneTests {
    @Test func aLaneHoldsNoStateForTestHooks() {
        let lane = DeliveryLane(name: "immediate", layout: .of(Int.self))
        let fields = Mirror(reflecting: lane).children.compactMap(\.label)
        #expect(fields.contains("offWaiters"), "the lane's own waiters are in it")
        #expect(fields.filter { $0.lowercased().contains("watcher") } == [])
    }

    // MARK: Priority

    @Test func onAnActorLaneAFireOfAHigherPrioritySupersedesTheJobEvenWhileItRuns() {
        var lane = DeliveryLane(name: "actor", layout: .of(Int.self))
        let bucket = ListenerBucket(number: 0, event: 0, lane: 2)
        let first = Self.enqueue(&lane, bucket, priority: 17, preemptsRunningJob: true)
        #expect(first?.priority == 17, "the first fire schedules a job at its priority")
        #expect(Self.enqueue(&lane, bucket, priority: 9, preemptsRunningJob: true) == nil, "a lower fire joins it")
        #expect(Self.enqueue(&lane, bucket, priority: 17, preemptsRunningJob: true) == nil, "so does an equal one")
        let batch = lane.start(first)
        #expect(batch?.buffer.count == 3, "the job runs")
        let second = Self.enqueue(&lane, bucket, priority: 25, preemptsRunningJob: true)
        #expect(second?.priority == 25, "a higher fire schedules a job at its priority while the first runs")
        #expect(!lane.isCurrent(first) && lane.isCurrent(second), "the new job supersedes the running one")
        _ = lane.finishBatch(count: 3, recycling: nil)
        batch?.buffer.removeAll()
        #expect(lane.isDraining, "the superseded job leaves the drain to the new one")
        #expect(lane.start(second)?.buffer.count == 1, "which delivers the higher fire")
        _ = lane.finishBatch(count: 1, recycling: nil)
    }

    @Test func aSupersededJobThatHasNotStartedDeliversNothing() {
        var lane = DeliveryLane(name: "actor", layout: .of(Int.self))
        let bucket = ListenerBucket(number: 0, event: 0, lane: 2)
        let low = Self.enqueue(&lane, bucket, priority: 9, preemptsRunningJob: true)
        let high = Self.enqueue(&lane, bucket, priority: 25, preemptsRunningJob: true)
        #expect(lane.start(low) == nil, "the low job leaves everything to the high one")
        #expect(lane.isDraining, "without ending the drain")
        let batch = lane.start(high)
        #expect(batch?.buffer.count == 2, "the high job carries both fires")
        _ = lane.finishBatch(count: 2, recycling: nil)
        batch?.buffer.removeAll()
        #expect(lane.takeBatch() == nil && !lane.isDraining, "then the drain ends")
    }

    @Test func aStaleJobWhoseGenerationCameRoundAgainStartsNothingOnceTheCurrentJobHasStarted() {
        var lane = DeliveryLane(name: "immediate", layout: .of(Int.self))
        let bucket = ListenerBucket(number: 0, event: 0, lane: 1)
        lane.startInlineDelivery()
        _ = Self.enqueue(&lane, bucket, priority: 9, preemptsRunningJob: false)
        // After 2³² generations a job superseded long ago carries the current generation again;
        // the current job, a firing thread's, has started: the stale one must take nothing.
        let stale = lane.job
        #expect(lane.start(stale) == nil, "two jobs never deliver one lane at once")
        #expect(lane.takeBatch()?.count == 1, "the queued fire stays for the job that runs the lane")
    }

    @Test func onTheImmediateLaneOnlyAJobThatHasNotStartedIsSupersededAndARunningOneYieldsAtItsBatchEnd() {
        var lane = DeliveryLane(name: "immediate", layout: .of(Int.self))
        let bucket = ListenerBucket(number: 0, event: 0, lane: 1)
        lane.startInlineDelivery()
        #expect(
            Self.enqueue(&lane, bucket, priority: 25, preemptsRunningJob: false) == nil,
            "the firing thread delivering is never superseded")
        let batch = lane.takeBatch()
        lane.hold(DeliveryLane.HeldBatch(buffer: batch!))
        let handOff = lane.continueInNewJob()
        #expect(handOff.priority == 25, "the hand-off job runs at the priority of the fire it carries")
        let higher = Self.enqueue(&lane, bucket, priority: 33, preemptsRunningJob: false)
        #expect(higher?.priority == 33, "a higher fire supersedes the hand-off job that has not started")
        #expect(lane.start(handOff) == nil, "which then delivers nothing: two jobs never deliver at once")
        #expect(lane.start(higher)?.buffer.count == 1, "the new job resumes the held batch")
        #expect(!lane.mustYield(higher))
        #expect(
            Self.enqueue(&lane, bucket, priority: 40, preemptsRunningJob: false) == nil,
            "a started job is not superseded")
        #expect(lane.mustYield(higher), "it yields to a job of the higher priority at the end of its batch")
        _ = lane.finishBatch(count: 1, recycling: nil)
        batch?.removeAll()
        _ = lane.dropPending()
    }

    @Test func theMainLaneSchedulesOneJobWhateverItsFiresPriorities() {
        var lane = DeliveryLane(name: "main actor", layout: .of(Int.self))
        let bucket = ListenerBucket(number: 0, event: 0, lane: 0)
        #expect(Self.enqueue(&lane, bucket, priority: 0, preemptsRunningJob: false) != nil)
        #expect(Self.enqueue(&lane, bucket, priority: 0, preemptsRunningJob: false) == nil)
        #expect(lane.pendingPriority == 0, "main-lane fires carry no priority")
        _ = lane.dropPending()
    }

    @Test func aJobThatContinuesTheDrainRunsAtTheHighestPriorityOfTheFiresItCarries() {
        var lane = DeliveryLane(name: "actor", layout: .of(Int.self))
        let bucket = ListenerBucket(number: 0, event: 0, lane: 2)
        let first = Self.enqueue(&lane, bucket, priority: 25, preemptsRunningJob: true)
        let batch = lane.start(first)
        _ = Self.enqueue(&lane, bucket, priority: 9, preemptsRunningJob: true)
        lane.hold(batch!)
        #expect(lane.continueInNewJob().priority == 25, "the held batch's fire outranks the queued one")
        let resumed = lane.start(lane.job)
        _ = lane.finishBatch(count: 1, recycling: nil)
        resumed?.buffer.removeAll()
        #expect(lane.continueInNewJob().priority == 9, "once delivered, only the queued fire counts")
        _ = lane.dropPending()
    }

    private static func enqueue(
        _ lane: inout DeliveryLane,
        _ bucket: ListenerBucket,
        priority: UInt8,
        preemptsRunningJob: Bool
    ) -> DeliveryLane.Job? {
        var value = 1
        return withUnsafePointer(to: &value) { payload in
            lane.enqueue(
                DeliveryHeader(bucket: .passUnretained(bucket), mark: 1), payload: payload, priority: priority,
                preemptsRunningJob: preemptsRunningJob
            ).schedule
        }
    }
}
