import SDKEventBusConfig
import Testing

/// A callback that subscribes, unsubscribes or fires on its own bus does not deadlock, and sees the
/// delivery rules: in each delivery context.
@Suite(.timeLimit(.minutes(2))) struct FlagBusReentrancyTests {
    let bus: FlagBus
    let emitter: FlagEmitter

    init() {
        (bus, emitter) = FlagBus.makeBus()
    }

    @Test(arguments: DeliveryContext.allCases)
    func callbackThatFiresDoesNotDeadlockAndItsEventFollowsTheCurrentFire(_ context: DeliveryContext) async {
        let calls = CallLog<String>()
        let listeners = Listeners(bus, in: context)
        let emitter = self.emitter
        listeners.on(.flagsChanged) { _ in
            calls.append("flags.changed 1")
            emitter.fire(.error(FlagErrorPayload(message: "fired from a callback")))
        }
        listeners.on(.flagsChanged) { _ in calls.append("flags.changed 2") }
        listeners.on(.error) { _ in calls.append("error") }
        emitter.fire(.numbered(1))
        await bus.flush()
        await bus.flush()  // the fire made during the first flush's delivery
        #expect(calls.items == ["flags.changed 1", "flags.changed 2", "error"])
    }

    @Test(arguments: DeliveryContext.allCases)
    func listenerSubscribedInACallbackMissesTheFireBeingDeliveredAndGetsTheNext(_ context: DeliveryContext) async {
        let calls = CallLog<String>()
        let listeners = Listeners(bus, in: context)
        let subscribed = CallLog<EventSubscription>()
        listeners.on(.flagsChanged) { _ in
            guard subscribed.count == 0 else { return }
            subscribed.append(listeners.on(.flagsChanged) { calls.append("new \($0.number!)") })
        }
        emitter.fire(.numbered(1))
        await bus.flush()
        emitter.fire(.numbered(2))
        await bus.flush()
        #expect(calls.items == ["new 2"])
    }

    @Test(arguments: DeliveryContext.queued)
    func listenerSubscribedInACallbackMissesFiresAlreadyQueued(_ context: DeliveryContext) async {
        let calls = CallLog<String>()
        let listeners = Listeners(bus, in: context)
        let subscribed = CallLog<EventSubscription>()
        listeners.on(.flagsChanged) { _ in
            guard subscribed.count == 0 else { return }
            subscribed.append(listeners.on(.flagsChanged) { calls.append("new \($0.number!)") })
        }
        await listeners.withDeliveryHeld { [emitter] _ in
            emitter.fire(.numbered(1))
            emitter.fire(.numbered(2))  // fired before the new listener subscribes
        }
        await bus.flush()
        emitter.fire(.numbered(3))
        await bus.flush()
        #expect(calls.items == ["new 3"])
    }

    @Test(arguments: DeliveryContext.allCases)
    func callbackThatUnsubscribesALaterListenerPreventsItsCall(_ context: DeliveryContext) async {
        let calls = CallLog<String>()
        let listeners = Listeners(bus, in: context)
        let later = CallLog<EventSubscription>()
        let bus = self.bus
        listeners.on(.error) { _ in
            calls.append("first")
            later.items[0].cancel()
        }
        later.append(listeners.on(.error) { _ in calls.append("second") })
        emitter.fire(.error(FlagErrorPayload(message: "1")))
        emitter.fire(.error(FlagErrorPayload(message: "2")))
        await bus.flush()
        #expect(calls.items == ["first", "first"])
    }

    @Test(arguments: DeliveryContext.allCases)
    func callbackThatUnsubscribesItselfIsNotCalledForFiresAlreadyQueued(_ context: DeliveryContext) async {
        let calls = CallLog<Int>()
        let mine = CallLog<EventSubscription>()
        mine.append(
            Listeners(bus, in: context).on(.flagsChanged) { payload in
                calls.append(payload.number!)
                mine.items[0].cancel()
            })
        await Listeners(bus, in: context).withDeliveryHeld { [emitter] _ in
            for number in 0..<5 { emitter.fire(.numbered(number)) }
        }
        await bus.flush()
        #expect(calls.items == [0])
        #expect(bus.listenerCount(for: .flagsChanged) == 0)
    }

    @Test(arguments: DeliveryContext.allCases)
    func cancellingInACallbackDropsTheFireThatCallbackQueued(_ context: DeliveryContext) async {
        let calls = CallLog<String>()
        let listeners = Listeners(bus, in: context)
        let errorListener = CallLog<EventSubscription>()
        let emitter = self.emitter
        listeners.on(.flagsChanged) { _ in
            emitter.fire(.error(FlagErrorPayload(message: "queued behind this fire")))
            errorListener.items[0].cancel()
            calls.append("flags.changed")
        }
        errorListener.append(listeners.on(.error) { _ in calls.append("error") })
        emitter.fire(.numbered(1))
        await bus.flush()
        await bus.flush()
        #expect(calls.items == ["flags.changed"])
    }

    @Test(arguments: DeliveryContext.allCases)
    func callbackThatFlushesOrUnsubscribesInATaskDoesNotDeadlock(_ context: DeliveryContext) async {
        let calls = CallLog<String>()
        let bus = self.bus
        let mine = CallLog<EventSubscription>()
        let listeners = Listeners(bus, in: context)
        await withCheckedContinuation { (done: CheckedContinuation<Void, Never>) in
            mine.append(
                listeners.on(.error) { _ in
                    calls.append("error")
                    Task {
                        await bus.flush()
                        await bus.off(mine.items[0])
                        done.resume()
                    }
                })
            emitter.fire(.error(FlagErrorPayload(message: "boom")))
        }
        emitter.fire(.error(FlagErrorPayload(message: "after off")))
        await bus.flush()
        #expect(calls.items == ["error"])
    }

    @Test(arguments: DeliveryContext.allCases)
    func callbackFiringInALoopOnItsOwnEventEndsWhenItUnsubscribes(_ context: DeliveryContext) async {
        let calls = CallLog<Int>()
        let mine = CallLog<EventSubscription>()
        let emitter = self.emitter
        mine.append(
            Listeners(bus, in: context).on(.flagsChanged) { payload in
                let number = payload.number!
                calls.append(number)
                if number < 50 {
                    emitter.fire(.numbered(number + 1))
                } else {
                    mine.items[0].cancel()
                }
            })
        emitter.fire(.numbered(0))
        await calls.waitForCount(51)
        await bus.flush()
        #expect(calls.items == Array(0...50))
    }
}
