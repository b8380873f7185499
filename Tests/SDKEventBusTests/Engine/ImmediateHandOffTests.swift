import Foundation
import Testing

@testable import SDKEventBus
@testable import SDKEventBusConfig
@testable import SDKEventBusCore
@testable import SDKEventBusWire

/// A firing thread runs every immediate listener of its own fire, then delivers what was fired
/// meanwhile for at most one job's budget, and hands the rest to a job on the global executor:
/// it is never drafted into an unbounded stream of other fires, and every guarantee holds across
/// the hand-off.
///
/// The tests lower the budget to a few callbacks (``BusStorage/limitJobs(toCallbacks:)``), so the
/// hand-off happens at a known point.
@Suite struct ImmediateHandOffTests {
    @MainActor
    @Test func aMainActorFireDeliversOtherFiresForOneJobAtMostThenThePoolDeliversTheRestInOrder() async {
        let (bus, emitter) = EventBus.makeBus()
        bus.storage.limitJobs(toCallbacks: 3)
        let calls = LockedValue<[(number: Int, onFiringThread: Bool)]>([])
        bus.on(.apiQueueReleased, delivery: .immediate) { payload in
            let number = payload.number ?? -1
            calls.withLock { $0.append((number, FiringThread.isCurrent)) }
            // Fires made meanwhile: they queue behind the one being delivered.
            if number == 0 { for next in 1...10 { emitter.fire(SamplePayloads.numbered(next)) } }
        }
        FiringThread.whileFiring { emitter.fire(SamplePayloads.numbered(0)) }
        let onFiringThread = calls.withLock { $0.filter(\.onFiringThread).map(\.number) }
        #expect(onFiringThread == [0, 1, 2, 3], "its own fire, then one job's budget of the others")
        await bus.flush()
        let all = calls.withLock { $0 }
        #expect(all.map(\.number) == Array(0...10), "every fire once, in fire order")
        #expect(all.dropFirst(4).allSatisfy { !$0.onFiringThread }, "the rest ran in a job on the global executor")
    }

    @Test func aFirersOwnImmediateListenersAllRunBeforeFireReturnsWhateverTheBudget() async {
        let (bus, emitter) = EventBus.makeBus()
        bus.storage.limitJobs(toCallbacks: 2)
        let calls = LockedValue(0)
        for _ in 0..<10 {
            bus.on(.apiQueueReleased, delivery: .immediate) { _ in calls.withLock { $0 += 1 } }
        }
        emitter.fire(SamplePayloads.numbered(0))
        #expect(calls.withLock { $0 } == 10)
    }

    @Test func concurrentFirersAndHandOffsKeepEachThreadsOrderAndDeliverEachFireOnce() async {
        let (bus, emitter) = EventBus.makeBus()
        bus.storage.limitJobs(toCallbacks: 5)
        let received = LockedValue<[Int: [Int]]>([:])
        for listener in 0..<2 {
            bus.on(.apiQueueReleased, delivery: .immediate) { payload in
                let number = payload.number ?? -1
                received.withLock { $0[listener * 10 + number / 1_000, default: []].append(number % 1_000) }
            }
        }
        await withTaskGroup(of: Void.self) { group in
            for firer in 0..<4 {
                group.addTask {
                    for number in 0..<500 { emitter.fire(SamplePayloads.numbered(firer * 1_000 + number)) }
                }
            }
        }
        await bus.flush()
        let all = received.withLock { $0 }
        for listener in 0..<2 {
            for firer in 0..<4 {
                #expect(all[listener * 10 + firer] == Array(0..<500), "listener \(listener), firer \(firer)")
            }
        }
    }

    @Test func offDuringAHandedOnDrainIsFinal() async {
        let (bus, emitter) = EventBus.makeBus()
        bus.storage.limitJobs(toCallbacks: 1)
        let ended = LockedValue(false)
        let callsAfterOff = LockedValue(0)
        let subscription = bus.on(.apiQueueReleased, delivery: .immediate) { _ in
            if ended.withLock({ $0 }) { callsAfterOff.withLock { $0 += 1 } }
        }
        bus.on(.apiQueueReleased, delivery: .immediate) { payload in
            if payload.number == 0 { for next in 1...200 { emitter.fire(SamplePayloads.numbered(next)) } }
        }
        emitter.fire(SamplePayloads.numbered(0))  // hands 200 fires on, one callback per job
        await bus.off(subscription)
        ended.withLock { $0 = true }
        await bus.flush()
        #expect(callsAfterOff.withLock { $0 } == 0)
    }
}
