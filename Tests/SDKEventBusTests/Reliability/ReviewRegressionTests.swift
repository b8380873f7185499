import Dispatch
import Testing

@testable import SDKEventBus

/// Regressions for problems found in review, each reproduced before it was fixed.
@Suite(.timeLimit(.minutes(2))) struct ReviewRegressionTests {
    /// An owner that ends its subscriptions in its deinit, as the docs recommend.
    final class SelfCleaningOwner: Sendable {
        let bus: EventBus
        init(bus: EventBus) { self.bus = bus }
        deinit { bus.cancelAll(ownedBy: self) }
    }

    @Test func ownerDroppedDuringASweepDoesNotRunItsDeinitUnderTheLock() async {
        // Checking an owner during a sweep takes a strong reference; when another thread drops the
        // owner at that moment the sweep held the last one, and the owner's deinit (which calls
        // back into the bus) ran under the bus's lock: a deadlock.
        let (bus, _) = EventBus.makeBus()
        let stop = LockedValue(false)
        let group = DispatchGroup()
        DispatchQueue.global().async(group: group) {
            while !stop.withLock({ $0 }) { _ = bus.listenerCount(for: .ready) }
        }
        DispatchQueue.global().async(group: group) {
            for _ in 0..<20_000 {
                let owner = SelfCleaningOwner(bus: bus)
                bus.on(.ready, owner: owner) { _, _ in }
            }
            stop.withLock { $0 = true }
        }
        let finished = await withCheckedContinuation { continuation in
            DispatchQueue.global().async {
                continuation.resume(returning: group.wait(timeout: .now() + 60) == .success)
            }
        }
        #expect(finished, "deadlocked: an owner's deinit ran under the bus's lock")
    }

    @Test @MainActor func offFromAnotherThreadReturnsOnlyAfterTheRunningPass() async {
        let (bus, emitter) = EventBus.makeBus()
        let calls = Recorder<String>()
        let progress = LockedValue((aboutToCallOff: false, lastListenerRan: false, passOverWhenOffReturned: false))
        let target = Recorder<EventListenerToken>()
        let offTask = Recorder<Task<Void, Never>>()
        _ = bus.on(.ready) { _ in
            calls.append("first")
            let token = target.items[0]
            offTask.append(
                Task.detached {
                    progress.withLock { $0.aboutToCallOff = true }
                    await bus.off(token)
                    progress.withLock { $0.passOverWhenOffReturned = $0.lastListenerRan }
                })
            // Hold the pass until the other task is calling off, and a little longer.
            while !progress.withLock({ $0.aboutToCallOff }) {}
            for _ in 0..<1_000 { _ = progress.withLock { $0.aboutToCallOff } }
        }
        target.append(bus.on(.ready) { _ in calls.append("second") })
        _ = bus.on(.ready) { _ in progress.withLock { $0.lastListenerRan = true } }
        emitter.fire(.ready(ReadyPayload()))
        await bus.flush()
        await offTask.items[0].value
        #expect(calls.items == ["first"], "the ended listener is skipped")
        #expect(progress.withLock { $0.passOverWhenOffReturned }, "off returned while the pass could still call it")
    }

    @Test func sequenceOfNoEventsFinishesAtOnce() async {
        let (bus, _) = EventBus.makeBus()
        var iterator = bus.events([]).makeAsyncIterator()
        #expect(await iterator.next() == nil)
    }

    @Test func gateShutDownBeforeOpeningAnnouncesNothing() {
        let gate = ReadinessGate<Int>()
        gate.shutDown()
        var announced = false
        #expect(gate.open(1) { announced = true } == false)
        #expect(!announced, "no .ready for a store that was shut down first")
    }
}
