import Dispatch
import SDKEventBusTesting
import Testing

@testable import SDKEventBus
@testable import SDKEventBusConfig
@testable import SDKEventBusCore
@testable import SDKEventBusWire

/// The first-result race's transitions, played step by step with strings as waiters and task
/// handles.
@Suite struct FirstResultStateMachineTests {
    typealias Machine = FirstResultStateMachine<String, String>

    @Test func anEndBeforeTheWaiterRegistersIsRememberedAndNothingStarts() {
        var machine = Machine()
        #expect(machine.end() == nil, "no waiter yet: the end is remembered")
        #expect(machine.register("waiter") == .resumeCancelled, "the registration resumes at once")
        #expect(machine.started("operation") == "operation", "a task started anyway is cancelled at once")
        #expect(machine.handleCount == 0)
    }

    @Test func anEndAfterRegistrationHandsBackEveryStartedTaskToCancel() {
        var machine = Machine()
        #expect(machine.register("waiter") == .start)
        #expect(machine.started("operation") == nil)
        #expect(machine.started("timer") == nil)
        let ended = machine.end()
        #expect(ended?.waiter == "waiter")
        #expect(ended?.cancel == ["operation", "timer"])
        #expect(machine.handleCount == 0, "nothing kept once ended")
    }

    @Test func anEndThatLandsBetweenRegisteringAndStartingCancelsTheTaskStartedAfter() {
        var machine = Machine()
        #expect(machine.register("waiter") == .start)
        #expect(machine.end()?.cancel == [], "the waiter resumes; nothing started yet")
        #expect(machine.started("operation") == "operation", "started after the end: cancel it at once")
    }

    @Test func onlyTheFirstEndCounts() {
        var machine = Machine()
        _ = machine.register("waiter")
        #expect(machine.end() != nil)
        #expect(machine.end() == nil)
        #expect(machine.hasEnded)
    }
}

/// The first-result race on real tasks: whichever of the operation, the caller's cancellation and
/// the deadline comes first ends the wait, and an operation never outlives it uncancelled.
@Suite struct FirstResultTests {
    @Test func theOperationsValueEndsTheWait() async {
        let ending = await FirstResult.run { 42 }
        guard case .finished(let value) = ending else {
            Issue.record("ended with \(ending)")
            return
        }
        #expect(value.value == 42)
    }

    @Test func aTaskCancelledBeforeItWaitsNeverStartsTheOperation() async {
        let started = Counter()
        let waiter = Task {
            withUnsafeCurrentTask { $0?.cancel() }
            return await FirstResult.run { started.increment() }
        }
        guard case .cancelled = await waiter.value else {
            Issue.record("not cancelled")
            return
        }
        #expect(started.count == 0, "the cancellation was remembered: the operation never started")
    }

    @Test func theDeadlineOnTheClockEndsTheWaitAndCancelsTheOperation() async throws {
        let clock = TestClock()
        let operation = CancellableOperation()
        let waiter = Task { await FirstResult.run(timeout: 3, clock: clock) { await operation.run() } }
        try await clock.waitForSleepers(1)
        clock.advance(by: 3)
        guard case .timedOut = await waiter.value else {
            Issue.record("not timed out")
            return
        }
        // Told before the wait returned, heard when the operation's task runs: that task may not
        // have started yet (it had not, once, under the thread sanitizer), so its end is awaited.
        await withCheckedContinuation { (ended: CheckedContinuation<Void, Never>) in
            DispatchQueue.global().async {
                operation.ended.wait()
                ended.resume()
            }
        }
        #expect(operation.wasCancelled, "the operation was told to stop when the deadline ended the wait")
    }

    @Test func anOperationThatEndsFirstLeavesNoSleeperOnTheClock() async {
        let clock = TestClock()
        _ = await FirstResult.run(timeout: 3, clock: clock) { 1 }
        #expect(clock.sleeperCount == 0, "the deadline's timer was cancelled")
    }

    /// Cancels each wait from a thread of its own, at a point that varies from round to round;
    /// every operation that started must end, cancelled: none is left running for nobody.
    @Test func cancellationLandingAnywhereLeavesNoOperationRunning() async {
        var operations: [CancellableOperation] = []
        for round in 0..<500 {
            let operation = CancellableOperation()
            operations.append(operation)
            let waiter = Task { await FirstResult.run { await operation.run() } }
            let spin = round % 50
            onAThreadOfItsOwn {
                var sum = 0
                for i in 0..<(spin * 20) { sum &+= i }
                _ = sum
                waiter.cancel()
            }
            guard case .cancelled = await waiter.value else {
                Issue.record("round \(round): the operation never returns by itself")
                return
            }
        }
        for (round, operation) in operations.enumerated() where operation.hasStarted {
            let ended = await offThePool { operation.ended.wait(timeout: .now() + 10) }
            #expect(ended == .success, "round \(round): an operation outlived its wait, never cancelled")
        }
    }
}

/// An operation that suspends until its task is cancelled, and records what happened to it.
final class CancellableOperation: Sendable {
    private let state = LockedValue((started: false, cancelled: false))
    /// Signalled when the operation ends.
    let ended = DispatchSemaphore(value: 0)

    var hasStarted: Bool { state.withLock { $0.started } }
    var wasCancelled: Bool { state.withLock { $0.cancelled } }

    func run() async {
        state.withLock { $0.started = true }
        defer { ended.signal() }
        let gate = LockedValue<CheckedContinuation<Void, Never>?>(nil)
        await withTaskCancellationHandler {
            await withCheckedContinuation { (continuation: CheckedContinuation<Void, Never>) in
                gate.withLock { $0 = continuation }
                if Task.isCancelled { gate.withLock { $0.take() }?.resume() }
            }
        } onCancel: {
            state.withLock { $0.cancelled = true }
            gate.withLock { $0.take() }?.resume()
        }
    }
}

extension Optional {
    fileprivate mutating func take() -> Wrapped? {
        defer { self = nil }
        return self
    }
}
