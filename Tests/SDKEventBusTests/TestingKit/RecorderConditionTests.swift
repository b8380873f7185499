import SDKEventBusTesting
import Testing

@testable import SDKEventBus
@testable import SDKEventBusConfig
@testable import SDKEventBusCore
@testable import SDKEventBusWire

/// A recorder's condition is the test's own code, so it runs outside the recorder's lock: a
/// condition that reads the recorder it waits on neither deadlocks nor traps (the lock is not
/// recursive), whether it is checked when the wait starts or after a delivery.
@Suite(.timeLimit(.minutes(1))) struct RecorderConditionTests {
    static let conversion = EventPayloadValue.conversion(ConversionPayload(goalId: "g", visitorId: "v"))

    @Test func aConditionThatReadsTheEventRecorderWhenTheWaitStartsDoesNotDeadlock() async throws {
        let (bus, emitter) = EventBus.makeBus()
        let recorder = EventRecorder(bus, delivery: .immediate)
        emitter.fire(Self.conversion)
        try await recorder.waitUntil("one event, read back from the recorder") { _ in recorder.count == 1 }
    }

    @Test func aConditionThatReadsTheEventRecorderAfterADeliveryDoesNotDeadlock() async throws {
        let (bus, emitter) = EventBus.makeBus()
        let recorder = EventRecorder(bus, delivery: .immediate)
        let steps = LifecycleRecorder()
        let waiting = Task {
            try await recorder.waitUntil("two events, read back from the recorder") { payloads in
                if payloads.isEmpty { steps.handler(.stopped) }  // tells the test the wait has started
                return recorder.payloads.count == 2
            }
        }
        try await steps.next { _ in true }
        emitter.fire(Self.conversion)
        emitter.fire(Self.conversion)
        try await waiting.value
    }

    @Test func aConditionThatReadsTheLifecycleRecorderDoesNotDeadlock() async throws {
        let steps = LifecycleRecorder()
        let waiting = Task {
            try await steps.wait(for: 1, "a stop, read back from the recorder") { step in
                if case .stopped = step { return steps.steps.count >= 2 } else { return false }
            }
        }
        steps.handler(.fetchStarted(attempt: 1))
        steps.handler(.stopped)
        try await waiting.value
        let stop = try await steps.next("the stop") { step in
            if case .stopped = step { return !steps.steps.isEmpty } else { return false }
        }
        #expect("\(stop)" == "\(LifecycleDiagnostic.stopped)")
    }

    /// The condition cancels its own task once the waiter is registered (a delivery checks only
    /// registered waiters): the waiter ends with `CancellationError` and is forgotten.
    @Test func aWaitCancelledWhileSuspendedEndsWithCancellation() async throws {
        let (bus, emitter) = EventBus.makeBus()
        let recorder = EventRecorder(bus, delivery: .immediate)
        let waitingTask = LockedValue<Task<Void, any Error>?>(nil)
        let started = LifecycleRecorder()
        let task = Task {
            try await recorder.waitUntil("never") { payloads in
                if payloads.isEmpty { started.handler(.stopped) }
                if payloads.count == 1 { waitingTask.withLock { $0 }?.cancel() }
                return false
            }
        }
        waitingTask.withLock { $0 = task }
        try await started.next { _ in true }
        emitter.fire(Self.conversion)
        await #expect(throws: CancellationError.self) { try await task.value }
        #expect(recorder.waiterCount == 0)
    }

    /// A condition that holds only for a moment is still seen: it is checked against everything
    /// recorded up to each delivery.
    @Test func aConditionThatHoldsAfterOneDeliveryOnlyIsSeen() async throws {
        let (bus, emitter) = EventBus.makeBus()
        let recorder = EventRecorder(bus, delivery: .immediate)
        let started = LifecycleRecorder()
        let waiting = Task {
            try await recorder.waitUntil("exactly one event") { payloads in
                if payloads.isEmpty { started.handler(.stopped) }
                return payloads.count == 1
            }
        }
        try await started.next { _ in true }
        emitter.fire(Self.conversion)
        emitter.fire(Self.conversion)
        try await waiting.value
    }
}
