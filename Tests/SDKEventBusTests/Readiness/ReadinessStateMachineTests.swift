import Testing

@testable import SDKEventBus

@Suite struct ReadinessStateMachineTests {
    typealias Machine = ReadinessStateMachine<String>

    @Test func waiterRegisteredWhileWaitingSuspends() {
        var machine = Machine()
        let id = machine.makeWaiterID()
        #expect(machine.register(id, waiter: "a") == .suspend)
        #expect(machine.waiterCount == 1)
    }

    @Test func openReturnsEveryWaiterOnceInRegistrationOrder() {
        var machine = Machine()
        for name in ["a", "b", "c"] {
            _ = machine.register(machine.makeWaiterID(), waiter: name)
        }
        #expect(machine.open() == ["a", "b", "c"])
        #expect(machine.open() == nil, "a second open resumes nobody")
        #expect(machine.state == .ready)
        #expect(machine.waiterCount == 0)
    }

    @Test func waiterRegisteringAfterOpenResumesAtOnce() {
        var machine = Machine()
        _ = machine.open()
        #expect(machine.register(machine.makeWaiterID(), waiter: "late") == .resumeReady)
        #expect(machine.waiterCount == 0)
    }

    @Test func cancelRemovesOnlyThatWaiter() {
        var machine = Machine()
        let first = machine.makeWaiterID()
        let second = machine.makeWaiterID()
        _ = machine.register(first, waiter: "first")
        _ = machine.register(second, waiter: "second")
        #expect(machine.cancel(first) == "first")
        #expect(machine.cancel(first) == nil, "a waiter is resumed once")
        #expect(machine.open() == ["second"])
    }

    @Test func cancellationBeforeRegistrationResumesTheRegistrationWithCancellation() {
        var machine = Machine()
        let id = machine.makeWaiterID()
        #expect(machine.cancel(id) == nil)
        #expect(machine.register(id, waiter: "a") == .resumeCancelled)
        #expect(machine.waiterCount == 0)
        #expect(machine.pendingCancellationCount == 0)
    }

    @Test func cancellingWaitersInAnyOrderRemovesExactlyThem() {
        var machine = Machine()
        let ids = (0..<100).map { index in
            let id = machine.makeWaiterID()
            _ = machine.register(id, waiter: "\(index)")
            return id
        }
        var generator = SplitMix64(seed: 7)
        let cancelled = Array(ids.shuffled(using: &generator).prefix(60))
        for id in cancelled {
            #expect(machine.cancel(id) == "\(id)")
        }
        #expect(machine.waiterCount == 40)
        let remaining = Set(ids).subtracting(cancelled).map { "\($0)" }
        #expect(Set(machine.open() ?? []) == Set(remaining))
    }

    @Test func cancellationAfterOpenChangesNothing() {
        var machine = Machine()
        let id = machine.makeWaiterID()
        _ = machine.register(id, waiter: "a")
        #expect(machine.open() == ["a"])
        #expect(machine.cancel(id) == nil)
        #expect(machine.pendingCancellationCount == 0)
    }

    @Test func cancellationsNotFollowedByRegistrationAreForgottenWhenTheGateOpens() {
        var machine = Machine()
        for _ in 0..<10 { _ = machine.cancel(machine.makeWaiterID()) }
        #expect(machine.pendingCancellationCount == 10)
        _ = machine.open()
        #expect(machine.pendingCancellationCount == 0)
    }

    @Test func shutDownReturnsEveryWaiterAndLaterRegistrationsFailAtOnce() {
        var machine = Machine()
        _ = machine.register(machine.makeWaiterID(), waiter: "a")
        _ = machine.register(machine.makeWaiterID(), waiter: "b")
        #expect(Set(machine.shutDown()) == ["a", "b"])
        #expect(machine.register(machine.makeWaiterID(), waiter: "c") == .resumeShutDown)
        #expect(machine.open() == nil, "a shut-down gate never opens")
        #expect(machine.state == .shutDown)
    }

    @Test func shutDownAfterOpenFailsLaterRegistrations() {
        var machine = Machine()
        _ = machine.open()
        #expect(machine.shutDown().isEmpty)
        #expect(machine.register(machine.makeWaiterID(), waiter: "a") == .resumeShutDown)
    }
}
