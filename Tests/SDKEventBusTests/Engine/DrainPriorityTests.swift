import Dispatch
import Foundation
import Testing

@testable import SDKEventBus
@testable import SDKEventBusConfig
@testable import SDKEventBusCore
@testable import SDKEventBusWire

/// A drain runs at least at the highest priority among the fires it carries.
///
/// - An actor lane: a fire of a higher priority than the drain's job schedules a job at its own
///   priority, which supersedes the other (that one leaves the drain to it at its start, or at the
///   end of the batch it is delivering).
/// - The immediate lane: a firing thread delivers other threads' fires only while none outranks
///   it; the job it hands them to runs at their priority.
/// - The main actor: its jobs run in the main queue's order, first in first out, whatever their
///   priority, so a fire of a higher priority joins the job already scheduled: another job would
///   only run after it.
///
/// No test sleeps or blocks the cooperative pool: the actor's jobs wait on an executor the test
/// runs by hand, the firing thread is a thread of its own, and the main-actor test blocks only the
/// main thread.
@Suite struct DrainPriorityTests {
    @available(macOS 14, iOS 17, tvOS 17, watchOS 10, *)
    @Test func anActorDrainRunsAtTheHighestPriorityOfTheFiresItCarries() async {
        let (bus, emitter) = EventBus.makeBus()
        let executor = HeldJobsExecutor()
        let sink = HeldSink(executor: executor)
        let seen = LockedValue<[(number: Int, priority: TaskPriority)]>([])
        bus.on(.apiQueueReleased, delivery: .isolated(to: sink)) { _, payload in
            seen.withLock { $0.append((payload.number ?? -1, Task.currentPriority)) }
        }
        // Nothing runs on the actor until the test says so: the low fire's job waits, and the high
        // fire finds the lane's drain scheduled at a lower priority.
        await Self.fire(0, at: .low, emitter)
        await Self.fire(1, at: .background, emitter)
        await Self.fire(2, at: .high, emitter)
        #expect(await executor.waitForJobs(2), "the high fire scheduled a job of its own")
        #expect(executor.priorities.sorted() == [.low, .high], "at its priority")
        await offThePool { executor.runHeldJobs() }
        await bus.flush()
        let delivered = seen.withLock { $0 }
        #expect(delivered.map(\.number) == [0, 1, 2], "each fire once, in fire order")
        #expect(
            delivered.allSatisfy { $0.priority >= .high }, "the high job carried them all: \(delivered)")
    }

    @Test func aFiringThreadHandsOtherFiresOfAHigherPriorityToAJobAtTheirPriority() async {
        let (bus, emitter) = EventBus.makeBus()
        let seen = LockedValue<[(number: Int, priority: TaskPriority, onFiringThread: Bool)]>([])
        let entered = LockedValue<CheckedContinuation<Void, Never>?>(nil)
        let gate = DispatchSemaphore(value: 0)
        bus.on(.apiQueueReleased, delivery: .immediate) { payload in
            let number = payload.number ?? -1
            seen.withLock { $0.append((number, Task.currentPriority, FiringThread.isCurrent)) }
            guard number == 0 else { return }
            // The firing thread (a thread of its own) holds the lane while the others fire.
            entered.withLock { $0.take() }?.resume()
            gate.wait()
        }
        await withCheckedContinuation { continuation in
            entered.withLock { $0 = continuation }
            onAThreadOfItsOwn { FiringThread.whileFiring { emitter.fire(SamplePayloads.numbered(0)) } }
        }
        await Self.fire(1, at: .low, emitter)
        await Self.fire(2, at: .high, emitter)
        gate.signal()
        await bus.flush()
        let delivered = seen.withLock { $0 }
        #expect(delivered.map(\.number) == [0, 1, 2], "each fire once, in fire order")
        #expect(delivered.first?.onFiringThread == true, "the firing thread runs its own fire's listeners")
        let others = delivered.dropFirst()
        #expect(others.allSatisfy { !$0.onFiringThread }, "a thread outside any task is outranked by both")
        #expect(others.allSatisfy { $0.priority >= .high }, "the job runs at the high fire's priority: \(delivered)")
    }

    @MainActor
    @Test func mainActorFiresOfAHigherPriorityJoinTheJobAlreadyScheduledAndKeepFireOrder() async {
        let (bus, emitter) = EventBus.makeBus()
        let seen = LockedValue<[Int]>([])
        bus.on(.apiQueueReleased) { payload in seen.withLock { $0.append(payload.number ?? -1) } }
        emitter.fire(SamplePayloads.numbered(0))  // schedules the lane's job, which waits for the main actor
        let scheduled = bus.storage.state.withLock { $0.lanes[BusStorage.mainLane].job }
        // A high-priority task fires while the test holds the main actor: it blocks the main
        // thread, never a thread of the pool, until the fire has returned.
        let fired = DispatchSemaphore(value: 0)
        Task.detached(priority: .high) {
            emitter.fire(SamplePayloads.numbered(1))
            fired.signal()
        }
        fired.wait()
        let after = bus.storage.state.withLock { $0.lanes[BusStorage.mainLane].job }
        #expect(after == scheduled, "no job for the high fire: the main queue would run it after this one")
        await bus.flush()
        #expect(seen.withLock { $0 } == [0, 1])
    }

    @Test func firesOfOneTaskAreDeliveredOnceAndTheDrainEnds() async {
        let (bus, emitter) = EventBus.makeBus()
        let sink = PrioritySink()
        bus.on(.apiQueueReleased, delivery: .isolated(to: sink)) { sink, payload in
            sink.record(payload.number ?? -1, Task.currentPriority)
        }
        await Task.detached(priority: .high) {
            emitter.fire(SamplePayloads.numbered(0))
            emitter.fire(SamplePayloads.numbered(1))
        }.value
        await bus.flush()
        #expect(await sink.seen.count == 2)
        #expect(bus.storage.state.withLock { $0.lanes.allSatisfy { !$0.isDraining } }, "the drain ended")
    }

    /// Fires `number` from a task of `priority` and returns once it has: without awaiting the
    /// task, which would raise it to the caller's priority.
    private static func fire(_ number: Int, at priority: TaskPriority, _ emitter: EventEmitter) async {
        await withCheckedContinuation { continuation in
            Task.detached(priority: priority) {
                emitter.fire(SamplePayloads.numbered(number))
                continuation.resume()
            }
        }
    }
}

/// A serial executor that holds every job enqueued on it until the test runs them, and records
/// each one's priority.
@available(macOS 14, iOS 17, tvOS 17, watchOS 10, *)
private final class HeldJobsExecutor: SerialExecutor {
    private let held = LockedValue<(jobs: [UnownedJob], priorities: [TaskPriority])>(([], []))
    /// Signalled once per job enqueued.
    private let arrived = DispatchSemaphore(value: 0)

    func enqueue(_ job: consuming ExecutorJob) {
        let priority = TaskPriority(rawValue: job.priority.rawValue)
        let job = UnownedJob(job)
        held.withLock { held in
            held.jobs.append(job)
            held.priorities.append(priority)
        }
        arrived.signal()
    }

    /// The priorities of the jobs enqueued so far.
    var priorities: [TaskPriority] { held.withLock { $0.priorities } }

    /// Whether `count` jobs arrived (counting from the last call), waiting on a thread of its own
    /// for 30 s at most: a regression fails the test instead of hanging it.
    func waitForJobs(_ count: Int) async -> Bool {
        await offThePool { [arrived] in
            (0..<count).allSatisfy { _ in arrived.wait(timeout: .now() + 30) == .success }
        }
    }

    /// Runs the held jobs in the order they came, on the calling thread.
    func runHeldJobs() {
        let jobs = held.withLock { held in
            defer { held.jobs = [] }
            return held.jobs
        }
        for job in jobs { job.runSynchronously(on: asUnownedSerialExecutor()) }
    }
}

/// An actor whose jobs run only when its executor's test runs them.
@available(macOS 14, iOS 17, tvOS 17, watchOS 10, *)
private actor HeldSink {
    private let executor: HeldJobsExecutor

    nonisolated var unownedExecutor: UnownedSerialExecutor { executor.asUnownedSerialExecutor() }

    init(executor: HeldJobsExecutor) {
        self.executor = executor
    }
}

/// Records the priority each numbered fire was delivered at.
private actor PrioritySink {
    private(set) var seen: [Int: TaskPriority] = [:]

    func record(_ number: Int, _ priority: TaskPriority) {
        seen[number] = priority
    }
}
