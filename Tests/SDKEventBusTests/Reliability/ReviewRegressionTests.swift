import Dispatch
import Testing

@testable import SDKEventBus
@testable import SDKEventBusConfig
@testable import SDKEventBusCore
@testable import SDKEventBusWire

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
        // Threads of their own: on Linux the cooperative pool runs on Dispatch's global threads, and
        // loops that spin there for long would starve the rest of the parallel suite.
        let group = DispatchGroup()
        group.enter()
        onAThreadOfItsOwn {
            while !stop.withLock({ $0 }) { _ = bus.listenerCount(for: .ready) }
            group.leave()
        }
        group.enter()
        onAThreadOfItsOwn {
            for _ in 0..<20_000 {
                let owner = SelfCleaningOwner(bus: bus)
                bus.on(.ready, owner: owner) { _, _ in }
            }
            stop.withLock { $0 = true }
            group.leave()
        }
        let finished = await offThePool { group.wait(timeout: .now() + 60) == .success }
        #expect(finished, "deadlocked: an owner's deinit ran under the bus's lock")
    }

    @available(macOS 14, iOS 17, tvOS 17, watchOS 10, *)
    @Test @MainActor func offFromAnotherThreadReturnsOnlyOnceThePassIsDoneWithTheListener() async {
        // The first callback holds the pass while another thread calls off for the second listener,
        // and lets it go only once that off call has run as far as it can: returned (the bug) or
        // suspended until the pass moves on.
        let (bus, emitter) = EventBus.makeBus()
        let calls = Recorder<String>()
        let progress = LockedValue((firstReturning: false, firstReturningWhenOffReturned: false))
        let target = Recorder<EventListenerToken>()
        let offTask = Recorder<Task<Void, Never>>()
        _ = bus.on(.ready) { _ in
            calls.append("first")
            let token = target.items[0]
            let offStarted = DispatchSemaphore(value: 0)
            offTask.append(
                Task { @QueueActor in
                    offStarted.signal()
                    await bus.off(token)
                    progress.withLock { $0.firstReturningWhenOffReturned = $0.firstReturning }
                })
            // Blocking the main thread, never a thread of the cooperative pool: the off call runs on
            // its own queue, which has run it until it returned or suspended once `sync` returns.
            offStarted.wait()
            QueueActor.executor.queue.sync {}
            progress.withLock { $0.firstReturning = true }
        }
        target.append(bus.on(.ready) { _ in calls.append("second") })
        _ = bus.on(.ready) { _ in calls.append("third") }
        emitter.fire(.ready(ReadyPayload()))
        await bus.flush()
        await offTask.items[0].value
        #expect(calls.items == ["first", "third"], "the ended listener is skipped, the pass goes on")
        #expect(
            progress.withLock { $0.firstReturningWhenOffReturned },
            "off returned while the pass was still in the callback before the listener")
    }

    @Test func sequenceOfNoEventsFinishesAtOnce() async {
        let (bus, _) = EventBus.makeBus()
        var iterator = bus.stream([]).makeAsyncIterator()
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
