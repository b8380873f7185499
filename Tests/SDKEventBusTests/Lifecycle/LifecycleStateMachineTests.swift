import Foundation
import Testing

@testable import SDKEventBus
@_spi(Testing) @testable import SDKEventBusConfig
@testable import SDKEventBusCore
@testable import SDKEventBusWire

/// Every decision of the lifecycle, driven synchronously with strings as waiters: the schedule,
/// demands, requests, pauses, backoff, staleness, the timer and stopping, with no task and no clock.
@Suite struct LifecycleStateMachineTests {
    typealias Machine = LifecycleStateMachine<String, String>

    struct Failed: Error {}

    /// A machine and what its actions did, as the shell would do it.
    struct Rig {
        var machine: Machine
        var now: UInt64 = 0
        /// How the loop was last woken, until it parks again.
        var wake: LifecycleLoopWake?
        var reports: [LifecycleDiagnostic] = []
        var resumed: [(String, Result<ConfigChange, any Error>)] = []
        var timer: (generation: UInt64, deadline: UInt64)?
        var fetches = 0

        init(_ settings: Machine.Settings = Machine.Settings()) {
            machine = Machine(settings: settings)
        }

        static func ns(_ seconds: TimeInterval) -> UInt64 { TimeUnits.nanoseconds(in: seconds) }

        mutating func perform(_ actions: [Machine.Action]) {
            for action in actions {
                switch action {
                case .report(let step): reports.append(step)
                case .wakeLoop(_, let wake):
                    self.wake = wake
                    if wake == .fetch { fetches += 1 }
                case .resume(let waiters, let result): resumed += waiters.value.map { ($0, result) }
                case .setTimer(let generation, let deadline): timer = (generation, deadline)
                case .abandonFetch: break
                case .cancelTimer(let generation):
                    if let timer, timer.generation <= generation { self.timer = nil }
                }
            }
        }

        /// Starts the lifecycle and parks its loop: the first fetch begins unless it does not fetch
        /// on start.
        mutating func start(isReady: Bool = false, isDecided: Bool = false) {
            _ = machine.start()
            perform(machine.startingConfigsApplied(isReady: isReady, isDecided: isDecided, now: now))
            park()
        }

        mutating func park() {
            wake = nil
            perform(machine.park("loop", now: now))
        }

        /// The fetch in flight succeeds with `change`; the loop parks again.
        mutating func succeed(_ change: ConfigChange = .updated) {
            machine.fetchArrived(now: now)
            perform(machine.fetchSucceeded(change, now: now))
            park()
        }

        /// The fetch in flight fails with `error`, without jitter; the loop parks again.
        mutating func fail(_ error: any Error = Failed()) {
            perform(machine.fetchFailed(error, random: 0, now: now))
            perform(machine.fetchFailedEnded(error, now: now))
            park()
        }

        /// Time passes to `seconds`; the timer goes off when its deadline has come.
        mutating func advance(to seconds: TimeInterval) {
            now = Self.ns(seconds)
            if let timer, timer.deadline <= now { perform(machine.timerFired(timer.generation, now: now)) }
        }

        mutating func demand(_ caller: String) {
            let id = machine.makeRefreshID()
            perform(machine.addRefreshWaiter(id, caller, now: now))
        }

        mutating func read() { perform(machine.requestIfStale(.stale, now: now)) }

        var didFetch: Bool { wake == .fetch }

        func count(_ matches: (LifecycleDiagnostic) -> Bool) -> Int { reports.filter(matches).count }
    }

    /// A lifecycle that fetched once at 0 s and is ready: its next refresh is due at 60 s.
    func readyRig(_ settings: Machine.Settings = Machine.Settings()) -> Rig {
        var rig = Rig(settings)
        rig.start()
        rig.perform(rig.machine.readinessDecided(isReady: true, now: rig.now))
        rig.succeed(.first)
        return rig
    }

    // MARK: The schedule and the pauses

    @Test func theFirstFetchRunsInLowPowerMode() {
        var rig = Rig()
        _ = rig.machine.start()
        rig.perform(rig.machine.setLowPower(true, now: 0))
        rig.perform(rig.machine.startingConfigsApplied(isReady: true, isDecided: true, now: 0))
        rig.park()
        #expect(rig.didFetch, "the first fetch is never held, even when a cache made the SDK ready")
    }

    @Test func aDueRefreshHeldByAPauseIsReportedOnceAndRunsWhenThePauseEnds() {
        var rig = readyRig()
        rig.perform(rig.machine.setLowPower(true, now: rig.now))
        rig.advance(to: 60)
        rig.advance(to: 61)
        #expect(!rig.didFetch, "held")
        #expect(rig.count { if case .refreshHeld = $0 { true } else { false } } == 1)
        rig.perform(rig.machine.setLowPower(false, now: rig.now))
        #expect(rig.didFetch, "runs as soon as the pause ends")
    }

    @Test func aPauseThatStartsAndEndsBeforeTheDeadlineChangesNothing() {
        var rig = readyRig()
        rig.perform(rig.machine.setLowPower(true, now: rig.now))
        rig.perform(rig.machine.setLowPower(false, now: rig.now))
        #expect(!rig.didFetch, "not due yet")
        rig.advance(to: 60)
        #expect(rig.didFetch, "the deadline then fetches")
    }

    @Test func theSDKsPauseAndLowPowerModeEachEndOnlyTheirOwn() {
        var rig = readyRig()
        rig.perform(rig.machine.setPausedBySDK(true, now: rig.now))
        rig.perform(rig.machine.setLowPower(true, now: rig.now))
        rig.advance(to: 60)
        rig.perform(rig.machine.setPausedBySDK(false, now: rig.now))
        #expect(!rig.didFetch, "low power mode still holds it")
        rig.perform(rig.machine.setLowPower(false, now: rig.now))
        #expect(rig.didFetch)
    }

    @Test func aRetryThatReadinessWaitsForIsNeverHeld() {
        var rig = Rig()
        rig.perform(rig.machine.setLowPower(true, now: 0))
        rig.start()
        rig.fail()
        rig.advance(to: 1)
        #expect(rig.didFetch, "not decided yet: the retry runs in low power mode")
    }

    @Test func aRetryOnceReadyIsHeldByAPause() {
        var rig = readyRig()
        rig.advance(to: 60)
        rig.fail()
        rig.perform(rig.machine.setPausedBySDK(true, now: rig.now))
        rig.advance(to: 61)
        #expect(!rig.didFetch)
    }

    @Test func aTimerOfAnEarlierGenerationChangesNothing() {
        var rig = readyRig()
        let earlier = try! #require(rig.timer)
        rig.demand("caller")  // fetches now: the refresh timer is cancelled
        rig.succeed()
        rig.now = Rig.ns(60)
        rig.wake = nil
        rig.perform(rig.machine.timerFired(earlier.generation, now: rig.now))
        #expect(!rig.didFetch, "a late timer of the earlier wait")
    }

    @Test func aLifecycleThatDoesNotFetchOnStartRefreshesAnIntervalAfterReadiness() {
        var rig = Rig(Machine.Settings(fetchesOnStart: false))
        rig.start()
        #expect(!rig.didFetch && rig.timer == nil, "waits for the SDK's first configuration")
        rig.now = Rig.ns(5)
        rig.perform(rig.machine.readinessDecided(isReady: true, now: rig.now))
        #expect(rig.timer?.deadline == Rig.ns(65))
    }

    // MARK: Demands

    @Test func aDemandRunsInLowPowerModeAndDuringABackoff() {
        var rig = readyRig()
        rig.advance(to: 60)
        rig.fail()
        rig.perform(rig.machine.setLowPower(true, now: rig.now))
        rig.demand("caller")
        #expect(rig.didFetch)
    }

    @Test func aDemandRunsBeforeTheSDKsFirstConfigurationWhilePaused() {
        var rig = Rig(Machine.Settings(fetchesOnStart: false))
        rig.perform(rig.machine.setPausedBySDK(true, now: 0))
        rig.perform(rig.machine.setLowPower(true, now: 0))
        rig.start(isReady: true, isDecided: true)
        rig.demand("caller")
        #expect(rig.didFetch, "a refresh asked for always runs")
        rig.succeed(.updated)
        #expect(rig.resumed.map(\.0) == ["caller"])
    }

    @Test func aDemandBeforeTheLoopParksIsNotLost() {
        var rig = readyRig()
        rig.machine.fetchArrived(now: 0)  // no fetch in flight: nothing happens
        rig.demand("caller")
        #expect(rig.didFetch)
        rig.machine.fetchArrived(now: 1)
        rig.perform(rig.machine.fetchSucceeded(.unchanged, now: 1))
        rig.demand("second")  // the loop has not parked yet
        #expect(rig.fetches == 2, "nothing to wake yet")
        rig.park()
        #expect(rig.fetches == 3, "the park itself sees the demand")
    }

    @Test func aDemandDuringAFetchJoinsItWithoutAnotherFetch() {
        var rig = readyRig()
        rig.demand("first")
        rig.demand("second")
        rig.succeed()
        #expect(rig.resumed.map(\.0).sorted() == ["first", "second"])
        #expect(rig.fetches == 2, "the first fetch and one demanded")
        #expect(!rig.didFetch)
    }

    @Test func aDemandThatStartsAFetchIsReportedOnce() {
        var rig = readyRig()
        rig.demand("first")
        rig.demand("joins")
        #expect(rig.count { if case .refreshRequested(.demand) = $0 { true } else { false } } == 1)
        #expect(rig.count { if case .fetchStarted = $0 { true } else { false } } == 2)
    }

    @Test func aDemandAfterTheConfigurationArrivedWaitsForTheNextFetch() {
        var rig = readyRig()
        rig.demand("first")
        rig.machine.fetchArrived(now: 0)
        rig.demand("later")
        rig.perform(rig.machine.fetchSucceeded(.updated, now: 0))
        #expect(rig.resumed.map(\.0) == ["first"], "the fetch that arrived before it is not its fetch")
        rig.park()
        #expect(rig.didFetch, "it asked for the next one")
        rig.succeed()
        #expect(rig.resumed.map(\.0) == ["first", "later"])
    }

    // MARK: Requests

    @Test func staleReadsDuringABackoffFetchNothingBeforeTheRetry() {
        var rig = readyRig(Machine.Settings(timeToLive: 0.2))
        rig.advance(to: 60)
        rig.fail()  // the retry is due 1 s later
        for millisecond in 1...999 {
            rig.now = Rig.ns(60 + Double(millisecond) / 1000)
            rig.read()
        }
        #expect(!rig.didFetch, "a read is not a fetch")
        rig.advance(to: 61)
        #expect(rig.didFetch, "the retry serves the request")
        #expect(rig.count { if case .refreshRequested(.stale) = $0 { true } else { false } } == 1)
    }

    @Test func staleReadsCoalesceIntoOneFetchAfterTheFloor() {
        var rig = readyRig(Machine.Settings(timeToLive: 0))
        rig.read()
        #expect(!rig.didFetch, "not sooner than 100 ms after the previous fetch")
        #expect(rig.timer?.deadline == Rig.ns(0.1))
        rig.read()
        rig.advance(to: 0.1)
        #expect(rig.fetches == 2)
        rig.read()
        #expect(rig.fetches == 2, "no request while a fetch is in flight")
        #expect(rig.count { if case .refreshRequested(.stale) = $0 { true } else { false } } == 1)
    }

    @Test func aStaleReadWhileAFetchIsAppliedIsServedOnceItEnds() {
        var rig = readyRig(Machine.Settings(timeToLive: 0.2))
        rig.advance(to: 60)
        #expect(rig.didFetch, "the periodic refresh")
        rig.machine.fetchArrived(now: rig.now)
        rig.advance(to: 60.3)
        rig.read()
        #expect(rig.count { if case .refreshRequested(.stale) = $0 { true } else { false } } == 1)
        #expect(rig.fetches == 2, "not while the fetch is applied")
        rig.perform(rig.machine.fetchSucceeded(.unchanged, now: rig.now))
        rig.park()
        #expect(
            rig.fetches == 3,
            "once that fetch has ended: the 100 ms between fetches count from its configuration's arrival, at 60")
    }

    @Test func theSpacingBetweenFetchesCountsFromAConfigurationsArrivalNotFromItsApplication() {
        var rig = readyRig(Machine.Settings(timeToLive: 0.2))
        rig.advance(to: 60)
        #expect(rig.didFetch, "the periodic refresh")
        rig.machine.fetchArrived(now: rig.now)
        rig.advance(to: 60.2)  // applying and caching it took 200 ms
        rig.perform(rig.machine.fetchSucceeded(.updated, now: rig.now))
        rig.park()
        rig.advance(to: 60.25)
        rig.read()
        #expect(
            rig.fetches == 3,
            "stale at 60.25, and more than 100 ms after the arrival at 60 (though not after the application): at once")
    }

    @Test func aStaleRequestIsHeldByAPauseOnceReady() {
        var rig = readyRig(Machine.Settings(timeToLive: 10))
        rig.perform(rig.machine.setLowPower(true, now: rig.now))
        rig.advance(to: 20)
        rig.read()
        #expect(!rig.didFetch)
        #expect(rig.count { if case .refreshHeld = $0 { true } else { false } } == 1)
        rig.perform(rig.machine.setLowPower(false, now: rig.now))
        #expect(rig.didFetch)
    }

    @Test func aFreshConfigurationOnForegroundIsReportedAndNotFetched() {
        var rig = readyRig(Machine.Settings(timeToLive: 30))
        rig.advance(to: 10)
        rig.perform(rig.machine.requestIfStale(.foreground, now: rig.now))
        #expect(!rig.didFetch)
        guard case .refreshSkipped(let age, 30) = rig.reports.last else {
            Issue.record("no skip reported: \(rig.reports)")
            return
        }
        #expect(age == 10)
    }

    // MARK: A configuration's age

    @Test func aConfigurationTheSDKSetAgesFromItsFetchDate() {
        var rig = Rig(Machine.Settings(timeToLive: 10, fetchesOnStart: false))
        rig.start()
        rig.perform(rig.machine.configCommitted(.first, age: 100, now: rig.now))
        rig.perform(rig.machine.readinessDecided(isReady: true, now: rig.now))
        #expect(rig.machine.configAge(now: rig.now) == 100, "fetched before the clock's origin")
        rig.perform(rig.machine.requestIfStale(.foreground, now: rig.now))
        rig.advance(to: 0)
        #expect(rig.didFetch, "stale on foreground: refreshed")
    }

    @Test func aConfigurationOfUnknownAgeIsStale() {
        var rig = Rig(Machine.Settings(timeToLive: 1_000, fetchesOnStart: false))
        rig.start()
        rig.perform(rig.machine.configCommitted(.first, age: nil, now: rig.now))
        rig.perform(rig.machine.readinessDecided(isReady: true, now: rig.now))
        rig.read()
        #expect(rig.didFetch)
    }

    @Test func anUnchangedRefetchMakesTheConfigurationFreshAgain() {
        var rig = readyRig(Machine.Settings(timeToLive: 10))
        rig.advance(to: 20)
        rig.perform(rig.machine.configCommitted(.unchanged, age: 0, now: rig.now))
        #expect(rig.machine.configAge(now: rig.now) == 0)
        rig.perform(rig.machine.configCommitted(.unchanged, age: 50, now: rig.now))
        #expect(rig.machine.configAge(now: rig.now) == 0, "an older confirmation changes nothing")
        rig.read()
        #expect(!rig.didFetch)
    }

    // MARK: Stopping

    @Test func stoppingWakesTheParkedLoopAndFailsEveryCaller() {
        var rig = readyRig()
        rig.demand("caller")  // fetch in flight
        rig.perform(rig.machine.stop(because: Failed()))
        #expect(rig.resumed.count == 1 && (try? rig.resumed[0].1.get()) == nil)
        rig.park()
        #expect(rig.wake == .stop)
        rig.demand("late")
        #expect(rig.resumed.count == 2, "a caller after the stop resumes at once")
        #expect(rig.timer == nil)
    }

    @Test func nothingIsFetchedAfterAStop() {
        var rig = readyRig(Machine.Settings(timeToLive: 0))
        rig.perform(rig.machine.stop(because: nil))
        rig.park()
        rig.advance(to: 100)
        rig.read()
        #expect(rig.fetches == 1)
    }

    // MARK: refreshNow() bookkeeping

    @Test func aRefreshCancelledAfterItWasResumedLeavesNothingBehind() {
        var rig = readyRig()
        for _ in 0..<1_000 {
            let id = rig.machine.makeRefreshID()
            rig.perform(rig.machine.addRefreshWaiter(id, "caller", now: rig.now))
            rig.succeed()
            #expect(rig.machine.cancelRefreshWaiter(id) == nil, "resumed already")
        }
        #expect(rig.machine.refreshBookkeepingCount == 0)
    }

    @Test func aRefreshCancelledBeforeItRegistersIsRememberedUntilItDoes() {
        var rig = readyRig()
        let id = rig.machine.makeRefreshID()
        #expect(rig.machine.cancelRefreshWaiter(id) == nil)
        rig.perform(rig.machine.addRefreshWaiter(id, "caller", now: rig.now))
        #expect(rig.resumed.count == 1)
        #expect(rig.resumed.first.map { (try? $0.1.get()) == nil } == true)
        #expect(rig.machine.refreshBookkeepingCount == 0)
    }

    @Test func stoppingFailsEveryRegisteredCallerAndKeepsReservations() {
        var rig = Rig()
        let first = rig.machine.makeRefreshID()
        rig.perform(rig.machine.addRefreshWaiter(first, "first", now: 0))
        let second = rig.machine.makeRefreshID()
        rig.perform(rig.machine.stop(because: Failed()))
        rig.perform(rig.machine.addRefreshWaiter(second, "second", now: 0))
        #expect(rig.resumed.map(\.0) == ["first", "second"])
        #expect(rig.resumed.allSatisfy { if case .failure(let error) = $0.1 { error is Failed } else { false } })
        #expect(rig.machine.refreshBookkeepingCount == 0)
    }
}
