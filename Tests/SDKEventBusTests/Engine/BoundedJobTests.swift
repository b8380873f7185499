import Testing

@testable import SDKEventBus
@_spi(Testing) @testable import SDKEventBusConfig
@_spi(Testing) @testable import SDKEventBusCore
@testable import SDKEventBusWire

/// A main-actor or actor delivery job runs at most about 2 ms of callbacks, then yields its
/// executor and continues in a new job: every guarantee holds across those job boundaries.
///
/// The tests lower the budget to a few callbacks (``BusStorage/limitJobs(toCallbacks:)``) so that
/// a pass spans jobs at known points, mid-fire included.
@Suite struct BoundedJobTests {
    @MainActor
    @Test func aMainActorJobThatYieldsMidBurstKeepsEachListenersOrderAndCallsEachOnce() async {
        let (bus, emitter) = EventBus.makeBus()
        bus.storage.limitJobs(toCallbacks: 7)  // 3 listeners: jobs stop mid-fire
        let calls = Recorder<(listener: Int, number: Int)>()
        for listener in 0..<3 {
            bus.on(.apiQueueReleased) { payload in calls.append((listener, Self.number(payload))) }
        }
        await Task.detached { for number in 0..<50 { emitter.fire(SamplePayloads.numbered(number)) } }.value
        await bus.flush()
        for listener in 0..<3 {
            let numbers = calls.items.filter { $0.listener == listener }.map(\.number)
            #expect(numbers == Array(0..<50), "listener \(listener): in fire order, each fire once")
        }
    }

    @MainActor
    @Test func aYieldingMainActorJobLetsOtherMainActorWorkRunBeforeItContinues() async {
        let (bus, emitter) = EventBus.makeBus()
        bus.storage.limitJobs(toCallbacks: 2)
        let log = Recorder<String>()
        bus.on(.apiQueueReleased) { payload in
            let number = Self.number(payload)
            if number == 0 { Task { @MainActor in log.append("other work") } }
            log.append("\(number)")
        }
        for number in 0..<6 { emitter.fire(SamplePayloads.numbered(number)) }
        await bus.flush()
        #expect(log.items == ["0", "1", "other work", "2", "3", "4", "5"])
    }

    @MainActor
    @Test func offDuringAYieldedBurstIsFinal() async {
        let (bus, emitter) = EventBus.makeBus()
        bus.storage.limitJobs(toCallbacks: 5)
        let state = OffState()
        bus.on(.apiQueueReleased) { payload in
            state.firstCalls += 1
            guard Self.number(payload) == 0, let token = state.token else { return }
            // Runs between two jobs of the pass.
            Task { @MainActor in
                await bus.off(token)
                state.offReturned = true
            }
        }
        state.token = bus.on(.apiQueueReleased) { _ in
            state.secondCalls += 1
            if state.offReturned { state.callsAfterOff += 1 }
        }
        await Task.detached { for number in 0..<50 { emitter.fire(SamplePayloads.numbered(number)) } }.value
        await bus.flush()
        #expect(state.offReturned)
        #expect(state.callsAfterOff == 0, "no callback after off returned")
        #expect(state.secondCalls < 50, "off landed mid-burst")
        #expect(state.firstCalls == 50)
    }

    @MainActor
    @Test func aOnceListenerIsCalledAtMostOnceAcrossYields() async {
        let (bus, emitter) = EventBus.makeBus()
        bus.storage.limitJobs(toCallbacks: 1)
        let counts = Recorder<Int>()
        bus.once(.apiQueueReleased) { _ in counts.append(0) }
        bus.on(.apiQueueReleased) { _ in counts.append(1) }
        for number in 0..<20 { emitter.fire(SamplePayloads.numbered(number)) }
        await bus.flush()
        #expect(counts.items.filter { $0 == 0 }.count == 1)
        #expect(counts.items.filter { $0 == 1 }.count == 20)
    }

    @MainActor
    @Test func flushWaitsForEveryFireAcrossYields() async {
        let (bus, emitter) = EventBus.makeBus()
        bus.storage.limitJobs(toCallbacks: 3)
        let calls = Recorder<Int>()
        bus.on(.apiQueueReleased) { payload in calls.append(Self.number(payload)) }
        bus.on(.apiQueueReleased) { payload in calls.append(Self.number(payload)) }
        let flushed = await Task.detached {
            for number in 0..<100 { emitter.fire(SamplePayloads.numbered(number)) }
            await bus.flush()
            return await calls.items.count
        }.value
        #expect(flushed == 200, "flush returned once every fire before it reached both listeners")
    }

    @MainActor
    @Test func shutdownDropsTheRestOfABatchHeldBetweenJobs() async {
        let (bus, emitter) = EventBus.makeBus()
        bus.storage.limitJobs(toCallbacks: 1)
        let calls = Recorder<Int>()
        bus.on(.apiQueueReleased) { payload in
            let number = Self.number(payload)
            if number == 0 { Task { @MainActor in emitter.shutdown() } }
            calls.append(number)
        }
        for number in 0..<10 { emitter.fire(SamplePayloads.numbered(number)) }  // one batch
        await bus.flush()
        #expect(calls.items == [0], "the shutdown between the first and second jobs dropped the rest")
        let lane = bus.storage.state.withLock { $0.lanes[BusStorage.mainLane] }
        #expect(lane.held == nil && !lane.isPassActive && lane.isIdle, "the held batch is gone")
    }

    @Test func anActorJobThatYieldsKeepsEachListenersOrderAndCallsEachOnce() async {
        let (bus, emitter) = EventBus.makeBus()
        bus.storage.limitJobs(toCallbacks: 4)
        let store = NumberStore()
        for listener in 0..<3 {
            bus.on(.apiQueueReleased, delivery: .isolated(to: store)) { store, payload in
                store.record(listener: listener, number: Self.number(payload))
            }
        }
        for number in 0..<40 { emitter.fire(SamplePayloads.numbered(number)) }
        await bus.flush()
        for listener in 0..<3 {
            #expect(await store.numbers(of: listener) == Array(0..<40), "listener \(listener)")
        }
    }

    @Test func aBudgetOfNoTimeIsSpentAtItsFirstCheck() {
        var budget = DeliveryBudget(.init(nanoseconds: 0, firstCheck: 40))
        var calls = 1
        while !budget.spend() { calls += 1 }
        #expect(calls == 40)
        #expect(budget.isSpent)
    }

    @Test func aBudgetIsNotSpentBeforeItsTime() {
        let start = SystemTimerClock().nanoseconds
        var budget = DeliveryBudget(.init(nanoseconds: 1_000_000, firstCheck: 16))
        while !budget.spend() {}
        #expect(SystemTimerClock().nanoseconds - start >= 1_000_000)
    }

    private static func number(_ payload: EventPayloadValue) -> Int {
        guard case .apiQueueReleased(let released) = payload else { return -1 }
        return released.eventCount
    }
}

/// What the `off` test watches, on the main actor where its callbacks run.
@MainActor
private final class OffState {
    var token: EventSubscription?
    var offReturned = false
    var firstCalls = 0
    var secondCalls = 0
    var callsAfterOff = 0
}

/// An actor that records, per listener, the numbers its callbacks received.
private actor NumberStore {
    private var received: [Int: [Int]] = [:]

    func record(listener: Int, number: Int) {
        received[listener, default: []].append(number)
    }

    func numbers(of listener: Int) -> [Int] {
        received[listener] ?? []
    }
}
