import Dispatch
import Testing

@testable import SDKEventBus
@testable import SDKEventBusAppEvents
@testable import SDKEventBusConfig
@testable import SDKEventBusCore
@testable import SDKEventBusWire

/// `flush()` and `off(_:)` return when their task is cancelled, on every kind of bus.
///
/// A cancelled `flush` returns early (delivery goes on); a cancelled `off` returns with the
/// subscription ended, while the call under way may still be finishing. A cancellation that lands
/// before the caller starts waiting is remembered, and a cancelled caller leaves nothing behind.
///
/// Each test holds a bus's immediate lane in a callback (on a thread of its own) so that a `flush`
/// or an `off` of that listener must wait, then cancels the waiting task. The wait for its return is
/// bounded, so a caller that ignores cancellation fails the test instead of hanging it.
@Suite struct WaiterCancellationTests {
    /// A bus of one kind, reduced to what the tests need.
    struct Subject: Sendable {
        let storage: BusStorage
        /// Subscribes an immediate listener that calls `body`; returns its token.
        let subscribe: @Sendable (_ body: @escaping @Sendable () -> Void) -> EventListenerToken
        /// Fires (or publishes) one event to it.
        let fire: @Sendable () -> Void
        let flush: @Sendable () async -> Void
        let off: @Sendable (EventListenerToken) async -> Void
    }

    struct Ping: AppEvent {}

    static func catalogBus() -> Subject {
        let (bus, emitter) = EventBus.makeBus()
        return Subject(
            storage: bus.storage,
            subscribe: { body in bus.on(.conversion, delivery: .immediate) { _ in body() } },
            fire: { emitter.fire(.conversion(ConversionPayload(goalId: "g", visitorId: "v"))) },
            flush: { await bus.flush() },
            off: { await bus.off($0) }
        )
    }

    static func appBus() -> Subject {
        let bus = AppEventBus()
        return Subject(
            storage: bus.storage,
            subscribe: { body in bus.on(Ping.self, delivery: .immediate) { _ in body() } },
            fire: { bus.publish(Ping()) },
            flush: { await bus.flush() },
            off: { await bus.off($0) }
        )
    }

    static let subjects: [@Sendable () -> Subject] = [catalogBus, appBus]

    /// A listener held inside its callback on a thread of its own, until `release()`.
    struct HeldListener {
        let token: EventListenerToken
        let proceed = DispatchSemaphore(value: 0)
        let finished = LockedValue(false)

        /// Subscribes the listener, fires, and returns once the callback is running.
        init(on subject: Subject) async {
            let entered = DispatchSemaphore(value: 0)
            let proceed = self.proceed
            let finished = self.finished
            token = subject.subscribe {
                entered.signal()
                proceed.wait()
                finished.withLock { $0 = true }
            }
            onAThreadOfItsOwn { subject.fire() }
            _ = await offThePool { entered.wait(timeout: .now() + 60) }
        }

        func release() {
            proceed.signal()
        }
    }

    /// Runs `wait` in a task, cancels the task once `waiting` has returned (or at once), and reports
    /// whether the task returned while the listener was still held.
    static func returnsWhenCancelled(
        _ wait: @escaping @Sendable () async -> Void,
        cancelBeforeItStarts: Bool = false,
        once waiting: () async -> Void
    ) async -> (returned: Bool, task: Task<Void, Never>) {
        let returned = DispatchSemaphore(value: 0)
        let task = Task {
            if cancelBeforeItStarts { withUnsafeCurrentTask { $0?.cancel() } }
            await wait()
            returned.signal()
        }
        if !cancelBeforeItStarts {
            await waiting()
            task.cancel()
        }
        let result = await offThePool { returned.wait(timeout: .now() + 60) }
        return (result == .success, task)
    }

    // MARK: flush

    @Test(arguments: 0..<2) func flushReturnsWhenItsTaskIsCancelledWhileItWaits(subject index: Int) async {
        let subject = Self.subjects[index]()
        let held = await HeldListener(on: subject)
        let (returned, task) = await Self.returnsWhenCancelled(subject.flush) {
            await subject.storage.waitForWaiters(.flush, 1, lane: BusStorage.immediateLane)
        }
        #expect(returned, "flush returned when cancelled, with the lane still busy")
        #expect(!held.finished.withLock { $0 })
        #expect(Self.flushWaiters(subject.storage) == 0, "the cancelled flush left nothing behind")
        held.release()
        await task.value
        await subject.flush()
        #expect(held.finished.withLock { $0 })
    }

    @Test(arguments: 0..<2) func flushInATaskAlreadyCancelledReturnsAtOnce(subject index: Int) async {
        let subject = Self.subjects[index]()
        let held = await HeldListener(on: subject)
        let (returned, task) = await Self.returnsWhenCancelled(subject.flush, cancelBeforeItStarts: true) {}
        #expect(returned, "the cancellation that came before flush waited was remembered")
        #expect(Self.flushWaiters(subject.storage) == 0)
        held.release()
        await task.value
        await subject.flush()
    }

    // MARK: off

    @Test(arguments: 0..<2) func offReturnsWhenItsTaskIsCancelledWithTheSubscriptionEnded(subject index: Int) async {
        let subject = Self.subjects[index]()
        let held = await HeldListener(on: subject)
        let (returned, task) = await Self.returnsWhenCancelled(
            { await subject.off(held.token) },
            once: { await subject.storage.waitForOffWaiters(1, lane: BusStorage.immediateLane) }
        )
        #expect(returned, "off returned when cancelled, with the callback still running")
        #expect(!held.finished.withLock { $0 }, "the callback may still be finishing")
        #expect(subject.storage.footprint.liveSubscriptions == 0, "it has ended")
        #expect(Self.offWaiters(subject.storage) == 0, "the cancelled off left nothing behind")
        held.release()
        await task.value
        await subject.flush()
        subject.fire()
        await subject.flush()
        #expect(held.finished.withLock { $0 })
    }

    @Test(arguments: 0..<2) func offInATaskAlreadyCancelledEndsTheSubscriptionAndReturnsAtOnce(subject index: Int) async
    {
        let subject = Self.subjects[index]()
        let held = await HeldListener(on: subject)
        let (returned, task) = await Self.returnsWhenCancelled(
            { await subject.off(held.token) },
            cancelBeforeItStarts: true,
            once: {}
        )
        #expect(returned)
        #expect(subject.storage.footprint.liveSubscriptions == 0)
        #expect(Self.offWaiters(subject.storage) == 0)
        held.release()
        await task.value
        await subject.flush()
    }

    @Test func aCancelledFlushDoesNotDisturbAnotherOne() async {
        let subject = Self.catalogBus()
        let held = await HeldListener(on: subject)
        let other = Task { await subject.flush() }
        await subject.storage.waitForWaiters(.flush, 1, lane: BusStorage.immediateLane)
        let (returned, task) = await Self.returnsWhenCancelled(subject.flush) {
            await subject.storage.waitForWaiters(.flush, 2, lane: BusStorage.immediateLane)
        }
        #expect(returned)
        #expect(Self.flushWaiters(subject.storage) == 1, "the other flush still waits")
        held.release()
        await other.value
        await task.value
        #expect(held.finished.withLock { $0 }, "the other flush returned only once delivery was done")
    }

    static func flushWaiters(_ storage: BusStorage) -> Int {
        storage.state.withLock { $0.lanes.reduce(0) { $0 + $1.flushWaiterCount } }
    }

    static func offWaiters(_ storage: BusStorage) -> Int {
        storage.state.withLock { $0.lanes.reduce(0) { $0 + $1.offWaiterCount } }
    }
}
