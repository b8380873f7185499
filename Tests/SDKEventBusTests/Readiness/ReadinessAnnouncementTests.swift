import Dispatch
import Foundation
import Testing

@_spi(Testing) @testable import SDKEventBusConfig
@_spi(Testing) @testable import SDKEventBusCore
@testable import SDKEventBusWire

/// A waiter that arrives while the gate announces its outcome (the store fires its ready event, the
/// lifecycle reports its step) returns only once the announcement is done: `ready()` never returns
/// before the ready event has been fired.
@Suite struct ReadinessAnnouncementTests {
    /// Tells a semaphore each time a waiter registers: the hook the testing library's
    /// `waitForReadyWaiters` uses.
    final class RegistrationSignal: ReadinessGateWatcher {
        let semaphore = DispatchSemaphore(value: 0)
        func waitersChanged(_: ReadinessWaiters) { semaphore.signal() }
    }

    @Test func waiterArrivingWhileTheOutcomeIsAnnouncedReturnsAfterTheAnnouncement() async throws {
        let gate = ReadinessGate<Int>()
        let signal = RegistrationSignal()
        _ = gate.watcher { signal }
        let order = LockedValue<[String]>([])
        let waiter = LockedValue<Task<Int, any Error>?>(nil)
        let opened = DispatchSemaphore(value: 0)

        // Opens on a thread of its own, so that blocking inside the announcement leaves the
        // cooperative pool free to run the waiter.
        let thread = Thread {
            gate.open(1) {
                // The window: the outcome is decided, the announcement is not finished.
                let task = Task.detached {
                    let outcome = try await gate.wait()
                    order.withLock { $0.append("waiter returned") }
                    signal.semaphore.signal()
                    return outcome
                }
                waiter.withLock { $0 = task }
                // Either the waiter registered (it waits), or it returned (it did not).
                _ = signal.semaphore.wait(timeout: .now() + 30)
                order.withLock { $0.append("announced") }
            }
            opened.signal()
        }
        thread.start()
        await withCheckedContinuation { continuation in
            DispatchQueue.global().async {
                opened.wait()
                continuation.resume()
            }
        }
        let task = try #require(waiter.withLock { $0 })
        #expect(try await task.value == 1)
        #expect(order.withLock { $0 } == ["announced", "waiter returned"])
    }

    @Test func readinessReportsTheOutcomeWhileItIsAnnounced() {
        let gate = ReadinessGate<Int>()
        var seen: Int?
        gate.open(3) { seen = gate.outcome }
        #expect(seen == 3, "a ready listener that reads the store's readiness finds it")
    }

    @Test func failureDuringTheAnnouncementOfReadinessChangesNothing() async throws {
        struct Refused: Error {}
        let gate = ReadinessGate<Int>()
        var failed = true
        gate.open(2) { failed = gate.fail(Refused()) }
        #expect(!failed, "the first outcome stands")
        #expect(try await gate.wait() == 2)
    }

    @Test func shutdownDuringTheAnnouncementFailsTheWaitersWithShutdown() async throws {
        let gate = ReadinessGate<Int>()
        gate.open(2) { gate.shutDown() }
        await #expect(throws: ReadinessError.shutDown) { try await gate.wait() }
        #expect(gate.outcome == nil)
    }
}
