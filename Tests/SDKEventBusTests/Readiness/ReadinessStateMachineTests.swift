import Testing

@testable import SDKEventBus
@testable import SDKEventBusConfig
@testable import SDKEventBusCore
@testable import SDKEventBusWire

/// The readiness gate's transitions, driven synchronously with strings as waiters and numbers as
/// outcomes.
@Suite struct ReadinessStateMachineTests {
    typealias Machine = ReadinessStateMachine<String, Int>

    struct Refused: Error, Equatable {}

    @Test func waiterRegisteredWhileWaitingSuspends() {
        var machine = Machine()
        let id = machine.makeWaiterID()
        #expect(machine.register(id, waiter: "a").name == "suspend")
        #expect(machine.waiterCount == 1)
    }

    @Test func openReturnsEveryWaiterOnceInRegistrationOrder() {
        var machine = Machine()
        for name in ["a", "b", "c"] {
            _ = machine.register(machine.makeWaiterID(), waiter: name)
        }
        #expect(machine.open(1) == ["a", "b", "c"])
        #expect(machine.open(2) == nil, "a second open resumes nobody")
        #expect(machine.outcome == 1, "the first outcome stands")
        #expect(machine.waiterCount == 0)
    }

    @Test func waiterRegisteringAfterOpenGetsTheSameOutcomeAtOnce() {
        var machine = Machine()
        _ = machine.open(7)
        #expect(machine.register(machine.makeWaiterID(), waiter: "late").name == "ready 7")
        #expect(machine.register(machine.makeWaiterID(), waiter: "later").name == "ready 7")
        #expect(machine.waiterCount == 0)
    }

    @Test func failDecidesForEveryWaiterAndEveryLaterOne() {
        var machine = Machine()
        _ = machine.register(machine.makeWaiterID(), waiter: "a")
        #expect(machine.fail(Refused()) == ["a"])
        #expect(machine.register(machine.makeWaiterID(), waiter: "late").name == "failed")
        #expect(machine.open(1) == nil, "a failed gate never opens")
        #expect(machine.fail(Refused()) == nil)
    }

    @Test func failAfterOpenChangesNothing() {
        var machine = Machine()
        _ = machine.open(1)
        #expect(machine.fail(Refused()) == nil)
        #expect(machine.outcome == 1)
    }

    @Test func cancelRemovesOnlyThatWaiter() {
        var machine = Machine()
        let first = machine.makeWaiterID()
        let second = machine.makeWaiterID()
        _ = machine.register(first, waiter: "first")
        _ = machine.register(second, waiter: "second")
        #expect(machine.cancel(first) == "first")
        #expect(machine.cancel(first) == nil, "a waiter is resumed once")
        #expect(machine.open(1) == ["second"])
    }

    @Test func cancellationBeforeRegistrationResumesTheRegistrationWithCancellation() {
        var machine = Machine()
        let id = machine.makeWaiterID()
        #expect(machine.cancel(id) == nil)
        #expect(machine.register(id, waiter: "a").name == "cancelled")
        #expect(machine.waiterCount == 0)
        #expect(machine.pendingCancellationCount == 0)
    }

    @Test func manyCancellationsLeaveExactlyTheOthersWaiting() {
        var machine = Machine()
        let ids = (0..<100).map { _ in machine.makeWaiterID() }
        for id in ids { _ = machine.register(id, waiter: "\(id)") }
        var generator = SplitMix64(seed: 7)
        let cancelled = Array(ids.shuffled(using: &generator).prefix(60))
        for id in cancelled {
            #expect(machine.cancel(id) == "\(id)")
        }
        #expect(machine.waiterCount == 40)
        let remaining = Set(ids).subtracting(cancelled).map { "\($0)" }
        #expect(Set(machine.open(1) ?? []) == Set(remaining))
    }

    @Test func cancellationAfterOpenChangesNothing() {
        var machine = Machine()
        let id = machine.makeWaiterID()
        _ = machine.register(id, waiter: "a")
        #expect(machine.open(1) == ["a"])
        #expect(machine.cancel(id) == nil)
        #expect(machine.pendingCancellationCount == 0)
    }

    @Test func cancellationsNotFollowedByRegistrationAreForgottenWhenTheGateOpens() {
        var machine = Machine()
        for _ in 0..<10 { _ = machine.cancel(machine.makeWaiterID()) }
        #expect(machine.pendingCancellationCount == 10)
        _ = machine.open(1)
        #expect(machine.pendingCancellationCount == 0)
    }

    @Test func shutDownReturnsEveryWaiterAndLaterRegistrationsFailAtOnce() {
        var machine = Machine()
        _ = machine.register(machine.makeWaiterID(), waiter: "a")
        _ = machine.register(machine.makeWaiterID(), waiter: "b")
        #expect(Set(machine.shutDown()) == ["a", "b"])
        #expect(machine.register(machine.makeWaiterID(), waiter: "c").name == "shut down")
        #expect(machine.open(1) == nil, "a shut-down gate never opens")
        #expect(machine.outcome == nil)
    }

    @Test func waiterRegisteringWhileTheOutcomeIsAnnouncedWaitsForTheAnnouncementToEnd() {
        var machine = Machine()
        _ = machine.register(machine.makeWaiterID(), waiter: "early")
        let decided = machine.decide(.ready(1))
        #expect(decided)
        #expect(machine.outcome == 1, "decided: the store reports its readiness")
        let during = machine.register(machine.makeWaiterID(), waiter: "during")
        #expect(during.name == "suspend")
        let resumed = machine.finishAnnouncing()?.waiters
        #expect(resumed == ["early", "during"])
        let after = machine.register(machine.makeWaiterID(), waiter: "after")
        #expect(after.name == "ready 1")
    }

    @Test func aGateBeingAnnouncedCannotBeDecidedAgain() {
        var machine = Machine()
        let first = machine.decide(.ready(1))
        let failed = machine.decide(.failed(Refused()))
        let second = machine.decide(.ready(2))
        #expect(first && !failed && !second)
        let resumed = machine.finishAnnouncing()?.waiters
        #expect(resumed == [])
        #expect(machine.outcome == 1)
    }

    @Test func cancellationWhileTheOutcomeIsAnnouncedResumesOnlyThatWaiter() {
        var machine = Machine()
        let id = machine.makeWaiterID()
        _ = machine.decide(.ready(1))
        _ = machine.register(id, waiter: "a")
        _ = machine.register(machine.makeWaiterID(), waiter: "b")
        let cancelled = machine.cancel(id)
        #expect(cancelled == "a")
        let resumed = machine.finishAnnouncing()?.waiters
        #expect(resumed == ["b"])
    }

    @Test func shutDownWhileTheOutcomeIsAnnouncedTakesEveryWaiter() {
        var machine = Machine()
        _ = machine.register(machine.makeWaiterID(), waiter: "a")
        _ = machine.decide(.ready(1))
        let shutDown = machine.shutDown()
        #expect(shutDown == ["a"])
        let resumed = machine.finishAnnouncing()
        #expect(resumed == nil, "nothing left to resume with the outcome")
        let late = machine.register(machine.makeWaiterID(), waiter: "late")
        #expect(late.name == "shut down")
    }

    @Test func shutDownAfterOpenFailsLaterRegistrations() {
        var machine = Machine()
        _ = machine.open(1)
        #expect(machine.shutDown().isEmpty)
        #expect(machine.register(machine.makeWaiterID(), waiter: "late").name == "shut down")
    }
}

extension ReadinessStateMachine {
    /// Decides ready and ends the announcement at once: the waiters to resume, or `nil` when the
    /// gate was not waiting.
    fileprivate mutating func open(_ outcome: Outcome) -> [Waiter]? {
        decide(.ready(outcome)) ? finishAnnouncing()?.waiters : nil
    }

    /// Decides failed and ends the announcement at once.
    fileprivate mutating func fail(_ error: any Error) -> [Waiter]? {
        decide(.failed(error)) ? finishAnnouncing()?.waiters : nil
    }
}

extension ReadinessStateMachine.Registration {
    /// The registration in words, for `#expect`: it holds an error, so it is not `Equatable`.
    fileprivate var name: String {
        switch self {
        case .suspend: "suspend"
        case .resumeReady(let outcome): "ready \(outcome.value)"
        case .resumeFailed: "failed"
        case .resumeCancelled: "cancelled"
        case .resumeShutDown: "shut down"
        }
    }
}
