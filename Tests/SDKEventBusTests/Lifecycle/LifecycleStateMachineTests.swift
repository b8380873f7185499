import Foundation
import Testing

@testable import SDKEventBus
@testable import SDKEventBusConfig
@testable import SDKEventBusCore
@testable import SDKEventBusWire

/// The lifecycle schedule's transitions, driven synchronously with strings as waiters: every
/// interleaving of the loop's wait with low power mode, deadlines, refreshes and cancellation.
@Suite struct LifecycleStateMachineTests {
    typealias Machine = LifecycleStateMachine<String, String>

    struct Failed: Error {}

    /// A machine whose loop has fetched once and waits for a periodic refresh that low power mode
    /// may hold.
    func waitingForARefresh(paused: Bool = false) -> (Machine, wait: UInt64) {
        var machine = Machine()
        _ = machine.setPaused(paused)
        let wait = machine.beginWait(isDue: false, pausable: true)
        return (machine, wait)
    }

    @Test func theFirstFetchRunsInLowPowerMode() {
        var machine = Machine()
        _ = machine.setPaused(true)
        _ = machine.beginWait(isDue: true, pausable: false)
        #expect(machine.park("loop") == .fetch, "the loop's first wait is not pausable")
        #expect(machine.isFetching)
    }

    @Test func aDueRefreshWaitsForLowPowerModeToEnd() {
        var (machine, wait) = waitingForARefresh(paused: true)
        #expect(machine.park("loop") == nil)
        #expect(machine.deadlinePassed(wait).wake == nil, "paused: the due refresh waits")
        #expect(machine.setPaused(false).wake == "loop", "and runs as soon as the pause ends")
        #expect(machine.isFetching)
    }

    @Test func thePauseEndingBetweenBeginningTheWaitAndParkingIsNotLost() {
        var (machine, wait) = waitingForARefresh(paused: true)
        #expect(machine.deadlinePassed(wait).wake == nil)
        #expect(machine.setPaused(false) == (true, nil), "nobody parked yet: nothing to wake")
        #expect(machine.park("loop") == .fetch, "the park itself sees it")
    }

    @Test func thePauseEndingAfterTheLoopParkedWakesIt() {
        var (machine, wait) = waitingForARefresh(paused: true)
        #expect(machine.park("loop") == nil)
        _ = machine.deadlinePassed(wait)
        #expect(machine.setPaused(false).wake == "loop")
    }

    @Test func aPauseThatStartsAndEndsBeforeTheDeadlineChangesNothing() {
        var (machine, wait) = waitingForARefresh()
        #expect(machine.park("loop") == nil)
        #expect(machine.setPaused(true).wake == nil)
        #expect(machine.setPaused(false).wake == nil, "not due yet: keep sleeping")
        #expect(machine.deadlinePassed(wait).wake == "loop", "the deadline then wakes it")
    }

    @Test func theDeadlinePassingBeforeTheLoopParksIsNotLost() {
        var (machine, wait) = waitingForARefresh()
        #expect(machine.deadlinePassed(wait).wake == nil, "nobody parked yet")
        #expect(machine.park("loop") == .fetch)
    }

    @Test func aTimerOfAnEarlierWaitChangesNothing() {
        var (machine, earlier) = waitingForARefresh()
        #expect(machine.park("loop") == nil)
        #expect(machine.deadlinePassed(earlier).wake == "loop")
        _ = machine.finishFetch(succeededAt: 1)
        _ = machine.beginWait(isDue: false, pausable: true)
        #expect(machine.deadlinePassed(earlier).wake == nil, "a late timer of the earlier wait")
        #expect(machine.park("loop") == nil, "the loop keeps waiting for its own deadline")
    }

    @Test func aRefreshAskedForRunsInLowPowerMode() {
        var (machine, _) = waitingForARefresh(paused: true)
        #expect(machine.park("loop") == nil)
        let id = machine.makeRefreshID()
        guard case .wait(let loop) = machine.addRefreshWaiter(id, "caller") else {
            Issue.record("the caller did not wait")
            return
        }
        #expect(loop?.value == "loop", "the refresh wakes the loop to fetch")
        #expect(machine.finishFetch(succeededAt: 1) == ["caller"])
    }

    @Test func aRefreshAskedForBeforeTheLoopParksIsNotLost() {
        var (machine, _) = waitingForARefresh()
        let id = machine.makeRefreshID()
        guard case .wait(let loop) = machine.addRefreshWaiter(id, "caller") else {
            Issue.record("the caller did not wait")
            return
        }
        #expect(loop == nil)
        #expect(machine.park("loop") == .fetch)
    }

    @Test func aRefreshDuringAFetchJoinsItWithoutAnotherFetch() {
        var machine = Machine()
        _ = machine.beginWait(isDue: true, pausable: false)
        #expect(machine.park("loop") == .fetch)
        let id = machine.makeRefreshID()
        guard case .wait(nil) = machine.addRefreshWaiter(id, "caller") else {
            Issue.record("the caller did not join")
            return
        }
        #expect(machine.finishFetch(succeededAt: nil) == ["caller"])
        _ = machine.beginWait(isDue: false, pausable: true)
        #expect(machine.park("loop") == nil, "no second fetch asked for")
    }

    @Test func cancellationBeforeTheLoopParksStopsIt() {
        var (machine, _) = waitingForARefresh()
        #expect(machine.cancelLoop() == nil)
        #expect(machine.park("loop") == .stop)
        #expect(machine.park("loop") == .stop, "for good")
    }

    @Test func cancellationWakesAParkedLoopToStop() {
        var (machine, _) = waitingForARefresh()
        #expect(machine.park("loop") == nil)
        #expect(machine.cancelLoop() == "loop")
    }

    @Test func staleConfigurationAsksForAFetch() {
        var machine = Machine()
        _ = machine.beginWait(isDue: true, pausable: false)
        _ = machine.park("loop")
        _ = machine.finishFetch(succeededAt: 10)
        _ = machine.beginWait(isDue: false, pausable: true)
        #expect(machine.park("loop") == nil)
        #expect(machine.triggerIfStale(timeToLive: 30, now: 39).freshAge == 29)
        #expect(machine.triggerIfStale(timeToLive: 30, now: 40).wake == "loop")
    }

    @Test func aDueRefreshHeldByAPauseSaysSo() {
        var (machine, wait) = waitingForARefresh(paused: true)
        #expect(machine.park("loop") == nil)
        let passed = machine.deadlinePassed(wait)
        #expect(passed.wake == nil && passed.held, "held: the step reports it")
        var (unpaused, other) = waitingForARefresh()
        #expect(unpaused.park("loop") == nil)
        #expect(unpaused.deadlinePassed(other).held == false)
    }

    @Test func theSDKsPauseHoldsPeriodicRefreshesLikeLowPowerModeAndEachEndsOnlyItsOwn() {
        var (machine, wait) = waitingForARefresh()
        #expect(machine.setPausedBySDK(true) == (true, nil))
        #expect(machine.park("loop") == nil)
        #expect(machine.deadlinePassed(wait).held)
        _ = machine.setPaused(true)
        #expect(machine.setPausedBySDK(false).wake == nil, "low power mode still holds it")
        #expect(machine.setPaused(false).wake == "loop")
    }

    @Test func theSDKsPauseNeverHoldsARefreshAskedFor() {
        var (machine, _) = waitingForARefresh()
        _ = machine.setPausedBySDK(true)
        #expect(machine.park("loop") == nil)
        let registration = machine.addRefreshWaiter(machine.makeRefreshID(), "caller")
        guard case .wait(let wake?) = registration else {
            Issue.record("a refresh asked for wakes the loop: \(registration)")
            return
        }
        #expect(wake.value == "loop")
    }

    // MARK: refreshNow() bookkeeping

    @Test func aStaleReadBetweenAFetchArrivingAndItsEndAsksForTheNextFetch() {
        var machine = Machine()
        _ = machine.beginWait(isDue: true, pausable: false)
        #expect(machine.park("loop") == .fetch)
        machine.fetchArrived(at: 10)
        // Applying the configuration resumed a ready() caller, who moved the clock and read it.
        #expect(machine.triggerIfStale(timeToLive: 30, now: 40).isTriggered)
        _ = machine.finishFetch(succeededAt: 10)
        _ = machine.beginWait(isDue: false, pausable: true)
        #expect(machine.park("loop") == .fetch, "the stale read is not lost")
    }

    @Test func aRefreshAskedForAfterTheConfigurationArrivedWaitsForTheNextFetch() {
        var machine = Machine()
        _ = machine.beginWait(isDue: true, pausable: false)
        #expect(machine.park("loop") == .fetch)
        machine.fetchArrived(at: 1)
        // Applying the configuration resumed a ready() caller, who asked for a refresh at once.
        let id = machine.makeRefreshID()
        _ = machine.addRefreshWaiter(id, "caller")
        #expect(machine.finishFetch(succeededAt: 1) == [], "the fetch that arrived before it is not its fetch")
        _ = machine.beginWait(isDue: false, pausable: true)
        #expect(machine.park("loop") == .fetch, "it asked for the next one")
        #expect(machine.finishFetch(succeededAt: 2) == ["caller"])
    }

    @Test func aRefreshCancelledAfterItWasResumedLeavesNothingBehind() {
        var machine = Machine()
        for _ in 0..<10_000 {
            let id = machine.makeRefreshID()
            _ = machine.addRefreshWaiter(id, "caller")
            _ = machine.beginWait(isDue: false, pausable: true)
            _ = machine.park("loop")  // the fetch it asked for begins
            #expect(machine.finishFetch(succeededAt: nil) == ["caller"])
            #expect(machine.cancelRefreshWaiter(id) == nil, "resumed already")
        }
        #expect(machine.refreshBookkeepingCount == 0)
    }

    @Test func aRefreshCancelledBeforeItRegistersIsRememberedUntilItDoes() {
        var machine = Machine()
        let id = machine.makeRefreshID()
        #expect(machine.cancelRefreshWaiter(id) == nil)
        guard case .resume(.failure(let error)) = machine.addRefreshWaiter(id, "caller") else {
            Issue.record("the caller was not resumed")
            return
        }
        #expect(error is CancellationError)
        #expect(machine.refreshBookkeepingCount == 0)
    }

    @Test func aRefreshCancelledBeforeItRegistersWithAStoppedLifecycleLeavesNothingBehind() {
        var machine = Machine()
        _ = machine.stop()
        for _ in 0..<1_000 {
            let id = machine.makeRefreshID()
            _ = machine.cancelRefreshWaiter(id)
            guard case .resume(.failure) = machine.addRefreshWaiter(id, "caller") else {
                Issue.record("the caller was not resumed")
                return
            }
        }
        #expect(machine.refreshBookkeepingCount == 0)
    }

    @Test func stoppingFailsEveryRegisteredCallerAndKeepsReservations() {
        var machine = Machine()
        machine.stopReason = Failed()
        let first = machine.makeRefreshID()
        _ = machine.addRefreshWaiter(first, "first")
        let second = machine.makeRefreshID()
        let (waiters, error) = machine.stop()
        #expect(waiters == ["first"])
        #expect(error is Failed)
        guard case .resume(.failure(let late)) = machine.addRefreshWaiter(second, "second") else {
            Issue.record("a caller registering after the stop was not resumed")
            return
        }
        #expect(late is Failed)
        #expect(machine.refreshBookkeepingCount == 0)
    }
}

extension LifecycleStateMachine.StaleCheck {
    /// The loop to wake, when the check asked for a fetch and the loop was parked.
    fileprivate var wake: LoopWaiter? {
        if case .triggered(let wake?) = self { return wake.value }
        return nil
    }

    /// Whether the check asked for a fetch.
    fileprivate var isTriggered: Bool {
        if case .triggered = self { return true }
        return false
    }

    /// The configuration's age, when the check found it fresh.
    fileprivate var freshAge: TimeInterval? {
        if case .fresh(let age) = self { return age }
        return nil
    }
}
