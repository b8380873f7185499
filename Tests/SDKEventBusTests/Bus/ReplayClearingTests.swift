import Testing

@testable import SDKEventBus
@testable import SDKEventBusConfig
@testable import SDKEventBusCore
@testable import SDKEventBusWire

/// The emitter can retract what a sticky or latest-on-request event replays.
///
/// After a logout, a late listener must not receive the old user. Deliveries already queued are unaffected, and the
/// retained payload is destroyed outside the bus's lock.
@Suite struct ReplayClearingTests {
    @Test func aLateListenerAfterAClearedStickyEventReceivesNothingUntilTheNextFire() async {
        let tally = Tally()
        let (bus, emitter) = CatalogBus<SessionEvent>.makeBus()
        emitter.fire(.userIdentified(HeavyPayload(1, tally: tally, weakTarget: nil)))
        emitter.clearReplay(of: .userIdentified)  // the user logged out

        let received = LockedValue<[Int]>([])
        _ = bus.on(.userIdentified, delivery: .immediate) { payload in
            received.withLock { $0.append(payload.heavy.number) }
        }
        #expect(received.withLock { $0 }.isEmpty, "the old user is not replayed")

        emitter.fire(.userIdentified(HeavyPayload(2, tally: tally, weakTarget: nil)))
        #expect(received.withLock { $0 } == [2])
        _ = bus.on(.userIdentified, delivery: .immediate) { payload in
            received.withLock { $0.append(payload.heavy.number) }
        }
        #expect(received.withLock { $0 } == [2, 2], "the next fire is sticky again")
    }

    @Test func aClearedLatestOnRequestEventIsNotReplayedEvenWhenAsked() async {
        let (bus, emitter) = EventBus.makeBus()
        emitter.fire(.configUpdated(ConfigUpdatedPayload(snapshot: nil)))
        emitter.clearReplay(of: .configUpdated)
        let calls = Counter()
        _ = bus.on(.configUpdated, delivery: .immediate, replayLatest: true) { _ in calls.increment() }
        #expect(calls.count == 0)
        emitter.fire(.configUpdated(ConfigUpdatedPayload(snapshot: nil)))
        #expect(calls.count == 1)
    }

    @Test func clearingOneEventLeavesTheOthersReplaysAlone() async {
        let (bus, emitter) = EventBus.makeBus()
        emitter.fire(.ready(ReadyPayload()))
        emitter.fire(.configUpdated(ConfigUpdatedPayload(snapshot: nil)))
        emitter.clearReplay(of: .configUpdated)
        emitter.clearReplay(of: .conversion)  // no replay rule: nothing to clear
        let calls = Counter()
        _ = bus.on(.ready, delivery: .immediate) { _ in calls.increment() }
        #expect(calls.count == 1, "ready is still sticky")
        #expect(bus.storage.footprint.retainedReplays == 1)
    }

    @MainActor
    @Test func deliveriesQueuedBeforeTheClearStillHappen() async {
        let (bus, emitter) = EventBus.makeBus()
        let early = Recorder<SystemEvent>()
        _ = bus.on(.ready) { payload in early.append(payload.event) }
        emitter.fire(.ready(ReadyPayload()))  // queued for the main actor, which this test holds
        let late = Recorder<SystemEvent>()
        _ = bus.on(.ready) { payload in late.append(payload.event) }  // its replay is queued too
        emitter.clearReplay(of: .ready)
        let later = Recorder<SystemEvent>()
        _ = bus.on(.ready) { payload in later.append(payload.event) }
        await bus.flush()
        #expect(early.items == [.ready], "a fire queued before the clear is delivered")
        #expect(late.items == [.ready], "a replay queued before the clear is delivered")
        #expect(later.items.isEmpty, "a listener subscribing after the clear gets nothing")
    }

    /// An object whose `deinit` calls back into the bus: run under the bus's lock, it would deadlock
    /// (or trap, with the error-checking lock of debug builds).
    final class CallsBackOnDeinit: Marked {
        let number: Int
        let bus: CatalogBus<SessionEvent>
        let ran: Counter

        init(_ number: Int, bus: CatalogBus<SessionEvent>, ran: Counter) {
            self.number = number
            self.bus = bus
            self.ran = ran
        }

        deinit {
            _ = bus.listenerCount(for: .userIdentified)
            ran.increment()
        }
    }

    @Test func theClearedPayloadIsDestroyedOutsideTheLockBeforeClearReturns() async {
        let tally = Tally()
        let (bus, emitter) = CatalogBus<SessionEvent>.makeBus()
        let ran = Counter()
        emitter.fire(
            .userIdentified(
                HeavyPayload(
                    1, strong: Tracked(tally), marked: CallsBackOnDeinit(1, bus: bus, ran: ran), weakTarget: nil)))
        #expect(tally.live == 1 && ran.count == 0, "only the replay store keeps the payload")
        emitter.clearReplay(of: .userIdentified)
        #expect(tally.live == 0, "destroyed before clearReplay returned")
        #expect(ran.count == 1, "its deinit called back into the bus without deadlock")
        #expect(bus.storage.footprint.retainedReplays == 0)
    }
}
