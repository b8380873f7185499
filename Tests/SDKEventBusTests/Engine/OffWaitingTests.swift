import Dispatch
import Testing

@testable import SDKEventBus
@testable import SDKEventBusConfig
@testable import SDKEventBusCore
@testable import SDKEventBusWire

/// When `off` waits, and when it must not: it waits only while a delivery pass may still call that
/// listener, and never for an executor that is busy with other work.
@Suite struct OffWaitingTests {
    @MainActor
    @Test func offFromAnotherTaskReturnsWhileTheMainActorIsBusyWithFiresQueued() async {
        let (bus, emitter) = EventBus.makeBus()
        let token = bus.on(.bucketing) { _ in }
        emitter.fire(SamplePayloads.sample(.bucketing))  // queued: a drain is scheduled, not running
        let returned = DispatchSemaphore(value: 0)
        Task.detached {
            await bus.off(token)
            returned.signal()
        }
        // Hold the main actor, as an app's main thread waiting on a semaphore would.
        let result = returned.wait(timeout: .now() + 30)
        #expect(result == .success, "off waited for the busy main actor: an app waiting for it would deadlock")
        await bus.flush()
    }

    /// An `off` that need not wait still does not return while the bus retains the callback.
    ///
    /// The pass is at the listener before it when the subscription ends, so its release is left
    /// to the pass; by the time `off` looks again the pass has moved past it. The test runs the two
    /// halves that the inlined `off` calls apart, to pin that interleaving.
    @Test func offThatNeedNotWaitReturnsWithTheCallbackReleasedEvenWhenThePassWasLeftToReleaseIt() async {
        let (bus, emitter) = EventBus.makeBus()
        let enteredX = DispatchSemaphore(value: 0)
        let proceedX = DispatchSemaphore(value: 0)
        let enteredZ = DispatchSemaphore(value: 0)
        let proceedZ = DispatchSemaphore(value: 0)
        _ = bus.on(.bucketing, delivery: .immediate) { _ in
            enteredX.signal()
            proceedX.wait()
        }
        weak var weakCanary: Canary?
        let y: EventSubscription = {
            let canary = Canary()
            weakCanary = canary
            return bus.on(.bucketing, delivery: .immediate) { _ in _ = canary }
        }()
        _ = bus.on(.bucketing, delivery: .immediate) { _ in
            enteredZ.signal()
            proceedZ.wait()
        }
        onAThreadOfItsOwn { emitter.fire(SamplePayloads.sample(.bucketing)) }
        _ = await offThePool { enteredX.wait(timeout: .now() + 30) }
        let bucket = bus.storage.endWaitingForPass(y)
        #expect(bucket != nil, "the pass, at the listener before, may call it: its release is deferred")
        proceedX.signal()
        _ = await offThePool { enteredZ.wait(timeout: .now() + 30) }
        if let bucket { await bus.storage.waitForPass(bucket: bucket, id: y.listenerID) }
        let retained = weakCanary != nil
        proceedZ.signal()
        await bus.flush()
        #expect(!retained, "off returned while the bus still retained the callback")
    }

    @Test func offWaitsForTheCallbackARunningPassIsCalling() async {
        let (bus, emitter) = EventBus.makeBus()
        let entered = DispatchSemaphore(value: 0)
        let proceed = DispatchSemaphore(value: 0)
        let finished = LockedValue(false)
        let token = bus.on(.bucketing, delivery: .immediate) { _ in
            entered.signal()
            proceed.wait()
            finished.withLock { $0 = true }
        }
        onAThreadOfItsOwn { emitter.fire(SamplePayloads.sample(.bucketing)) }
        _ = await offThePool { entered.wait(timeout: .now() + 30) }
        let off = Task {
            await bus.off(token)
            return finished.withLock { $0 }
        }
        await bus.storage.waitForOffWaiters(1, lane: BusStorage.immediateLane)
        proceed.signal()
        #expect(await off.value, "off returned while the pass was still calling the listener")
    }

    @Test func offWaitsForAListenerTheRunningPassHasNotReachedInTheSameFire() async {
        let (bus, emitter) = EventBus.makeBus()
        let entered = DispatchSemaphore(value: 0)
        let proceed = DispatchSemaphore(value: 0)
        let calls = LockedValue<[String]>([])
        _ = bus.on(.bucketing, delivery: .immediate) { _ in
            entered.signal()
            proceed.wait()
            calls.withLock { $0.append("first") }
        }
        let later = bus.on(.bucketing, delivery: .immediate) { _ in calls.withLock { $0.append("later") } }
        onAThreadOfItsOwn { emitter.fire(SamplePayloads.sample(.bucketing)) }
        _ = await offThePool { entered.wait(timeout: .now() + 30) }
        let off = Task { await bus.off(later) }
        await bus.storage.waitForOffWaiters(1, lane: BusStorage.immediateLane)
        proceed.signal()
        await off.value
        await bus.flush()
        #expect(calls.withLock { $0 } == ["first"], "the pass skipped the listener ended before it got there")
    }

    @Test func offOfAListenerInAnotherBucketDoesNotWaitForTheRunningPass() async {
        let (bus, emitter) = EventBus.makeBus()
        let entered = DispatchSemaphore(value: 0)
        let proceed = DispatchSemaphore(value: 0)
        _ = bus.on(.bucketing, delivery: .immediate) { _ in
            entered.signal()
            proceed.wait()
        }
        let other = bus.on(.conversion, delivery: .immediate) { _ in }
        onAThreadOfItsOwn { emitter.fire(SamplePayloads.sample(.bucketing)) }
        _ = await offThePool { entered.wait(timeout: .now() + 30) }
        await bus.off(other)  // would hang until `proceed` if it waited for the pass
        proceed.signal()
        await bus.flush()
        #expect(bus.listenerCount(for: .conversion) == 0)
    }

    @Test func cancelFromInsideTheCallbackEndsItWithoutWaitingForItself() async {
        let (bus, emitter) = EventBus.makeBus()
        let calls = LockedValue(0)
        let token = LockedValue<EventListenerToken?>(nil)
        token.withLock {
            $0 = bus.on(.bucketing, delivery: .immediate) { _ in
                calls.withLock { $0 += 1 }
                token.withLock { $0 }?.cancel()
            }
        }
        emitter.fire(SamplePayloads.sample(.bucketing))
        emitter.fire(SamplePayloads.sample(.bucketing))
        #expect(calls.withLock { $0 } == 1)
        #expect(bus.listenerCount(for: .bucketing) == 0)
    }
}
