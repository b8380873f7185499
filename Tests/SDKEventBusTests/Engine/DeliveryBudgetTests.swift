import Foundation
import Testing

@testable import SDKEventBus
@_spi(Testing) @testable import SDKEventBusCore

/// A delivery job holds its executor for about its budget (2 ms) whatever mix of callback costs it
/// runs: what ran before in the same job does not let later, slower callbacks run on unchecked.
///
/// Time here is simulated: each callback advances a clock by its known cost, and the budget reads
/// that clock (``DeliveryBudget/Limit/clock``, ``BusStorage/limitJobs(toNanoseconds:clock:)``), so
/// what a job runs is exact, whatever the machine's speed or load.
@Suite struct DeliveryBudgetTests {
    /// The production budget: 2 ms.
    static let budget = DeliveryBudget.Limit.job.nanoseconds
    static let cheap: UInt64 = 10
    static let slow: UInt64 = 50_000
    /// The most a job may run past its time: the callbacks of one span, when cheap callbacks give
    /// way to slow ones all at once.
    static let transitionAllowance = UInt64(DeliveryBudget.maximumSpacing) * slow

    @Test func aJobRunsPastItsTimeByAtMostOneSpanWhenCheapCallbacksGiveWayToSlowOnes() {
        // The burst: 5,000 cheap callbacks, then 2,000 of 50 µs, in one job.
        let costs = Array(repeating: Self.cheap, count: 5_000) + Array(repeating: Self.slow, count: 2_000)
        let spent = Self.runJob(costs: costs)
        #expect(spent <= Self.budget + Self.transitionAllowance, "the job held its executor \(spent) ns")
    }

    @Test func aJobOfSteadyCallbacksStopsWithinOneCallbackOfItsTime() {
        for cost: UInt64 in [Self.cheap, 300, 5_000, Self.slow, 700_000] {
            let spent = Self.runJob(costs: Array(repeating: cost, count: Int(Self.budget / cost) + 1_000))
            #expect(spent >= Self.budget, "cost \(cost): it used its time")
            #expect(spent <= Self.budget + max(cost, 4 * DeliveryBudget.spanNanoseconds), "cost \(cost): \(spent) ns")
        }
    }

    @Test func noMixOfCallbackCostsHoldsAJobPastItsTimeByMoreThanOneSpan() {
        var random = SplitMix64(seed: 34)
        for _ in 0..<200 {
            // Runs of callbacks of one cost each, from 5 ns to 1 ms.
            var costs: [UInt64] = []
            while costs.count < 30_000 {
                let cost = [5, 20, 200, 3_000, 20_000, 200_000, 1_000_000][Int(random.next() % 7)]
                costs += Array(repeating: UInt64(cost), count: Int(1 + random.next() % 3_000))
            }
            var clock: UInt64 = 0
            var budget = DeliveryBudget(Self.limit { clock })
            var ran = 0
            var startedAfterTime = 0
            for cost in costs {
                if clock >= Self.budget { startedAfterTime += 1 }
                clock += cost
                ran += 1
                if budget.spend() { break }
            }
            guard clock >= Self.budget else { continue }  // ran out of callbacks first
            #expect(startedAfterTime < DeliveryBudget.maximumSpacing, "started \(startedAfterTime) after its time")
            // Once a run of slow callbacks has gone on for a span, each span is one callback.
            let last = costs[ran - 1]
            let crossing = ran - 1 - startedAfterTime
            var runStart = ran - 1
            while runStart > 0, costs[runStart - 1] == last { runStart -= 1 }
            if last > 4 * DeliveryBudget.spanNanoseconds, crossing - runStart >= DeliveryBudget.maximumSpacing {
                #expect(startedAfterTime == 0, "a steady slow run stops at the callback that spends the time")
            }
        }
    }

    /// Runs callbacks of the given simulated costs in one job until its budget is spent.
    ///
    /// - Returns: The simulated time the job ran.
    private static func runJob(costs: [UInt64]) -> UInt64 {
        var clock: UInt64 = 0
        var budget = DeliveryBudget(limit { clock })
        for cost in costs {
            clock += cost
            if budget.spend() { break }
        }
        return clock
    }

    /// The production limit, reading `clock`.
    private static func limit(_ clock: @escaping () -> UInt64) -> DeliveryBudget.Limit {
        var limit = DeliveryBudget.Limit.job
        // The budget reads it on this thread only, within the test.
        nonisolated(unsafe) let read = clock
        limit.clock = { read() }
        return limit
    }
}

/// The same guarantee through a bus: main-actor jobs fed from the pool, and a firing thread that
/// takes on what other fires queued meanwhile.
@Suite struct MainThreadBudgetTests {
    @MainActor
    @Test func aBurstToCheapThenSlowMainActorListenersHoldsNoMainActorJobPastOneSpanOverItsBudget() async {
        let (bus, emitter) = EventBus.makeBus()
        let clock = SimulatedClock()
        bus.storage.limitJobs(toNanoseconds: DeliveryBudgetTests.budget, clock: { clock.now })
        let jobs = JobLog()
        for index in 0..<700 {
            let cost = index < 500 ? DeliveryBudgetTests.cheap : DeliveryBudgetTests.slow
            bus.on(.apiQueueReleased) { _ in jobs.record(after: clock.advance(by: cost)) }
        }
        await Task.detached { for number in 0..<3 { emitter.fire(SamplePayloads.numbered(number)) } }.value
        await bus.flush()
        #expect(jobs.callbacks == 2_100)
        let longest = jobs.durations.max() ?? 0
        #expect(jobs.durations.count > 10, "the burst's 30 ms were delivered in jobs of about 2 ms")
        #expect(
            longest <= DeliveryBudgetTests.budget + DeliveryBudgetTests.transitionAllowance,
            "the longest main-actor job ran \(longest) ns of callbacks")
    }

    @Test func aFiringThreadTakesOnOtherFiresOnlyForItsBudget() async {
        let (bus, emitter) = EventBus.makeBus()
        let clock = SimulatedClock()
        bus.storage.limitJobs(toNanoseconds: DeliveryBudgetTests.budget, clock: { clock.now })
        let onFiringThread = LockedValue<UInt64>(0)
        for index in 0..<700 {
            let cost = index < 500 ? DeliveryBudgetTests.cheap : DeliveryBudgetTests.slow
            bus.on(.apiQueueReleased, delivery: .immediate) { _ in
                let now = clock.advance(by: cost)
                if FiringThread.isCurrent { onFiringThread.withLock { $0 = now } }
            }
        }
        // One immediate listener of another event, whose call queues a burst behind it (as other
        // threads' fires would): 10 fires of 10 ms each.
        bus.on(.configUpdated, delivery: .immediate) { _ in
            for number in 0..<10 { emitter.fire(SamplePayloads.numbered(number)) }
        }
        FiringThread.whileFiring { emitter.fire(SamplePayloads.sample(.configUpdated)) }
        let held = onFiringThread.withLock { $0 }
        #expect(
            held <= DeliveryBudgetTests.budget + DeliveryBudgetTests.transitionAllowance,
            "the firing thread delivered \(held) ns of other fires")
        await bus.flush()
        #expect(clock.now == 10 * (500 * DeliveryBudgetTests.cheap + 200 * DeliveryBudgetTests.slow))
    }
}

/// A clock that only callbacks advance, by their simulated cost.
private final class SimulatedClock: Sendable {
    private let time = LockedValue<UInt64>(0)

    var now: UInt64 { time.withLock { $0 } }

    /// Advances the clock by `cost`.
    ///
    /// - Returns: The time after.
    func advance(by cost: UInt64) -> UInt64 {
        time.withLock { time in
            time += cost
            return time
        }
    }
}

/// Splits main-actor callbacks into the jobs that ran them: a callback schedules a main-actor task
/// that marks a job boundary; main-actor jobs run first in first out, so it runs right after the
/// job that scheduled it, before the bus's next job.
@MainActor
private final class JobLog {
    private var job = 0
    private var isMarkScheduled = false
    /// Per job, the simulated time after its last callback.
    private var ends: [Int: UInt64] = [:]
    private(set) var callbacks = 0

    func record(after time: UInt64) {
        callbacks += 1
        ends[job] = time
        guard !isMarkScheduled else { return }
        isMarkScheduled = true
        Task { @MainActor in
            self.job += 1
            self.isMarkScheduled = false
        }
    }

    /// The simulated time each job ran callbacks: from the end of the job before.
    var durations: [UInt64] {
        let sorted = ends.sorted { $0.key < $1.key }.map(\.value)
        return zip([0] + sorted, sorted).map { $1 - $0 }
    }
}
