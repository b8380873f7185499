import Foundation

/// A task executor on which work runs only when the test turns the crank, one job at a time, on the
/// thread that turns it, in an order a seed chooses: swift-nio's `EmbeddedEventLoop` for tasks.
///
/// A task started with `Task(executorPreference:)` runs its jobs here, and so do the default actors
/// it calls, its child tasks, the continuations anyone resumes for it, and the configuration half's
/// own tasks, which inherit their creator's preference. Any ready job may run next (a task executor
/// promises no order), so ``runUntilIdle(choosing:)`` takes the choice from the simulation's seed:
/// that is how a seed, not the thread pool, picks an interleaving.
///
/// Not thread-safe to crank from two threads: one thread runs the whole simulation. `enqueue` may
/// come from any thread (a lock guards the queue), though in a simulation every job is enqueued by
/// another job or by the cranking thread.
@available(macOS 15, iOS 18, tvOS 18, watchOS 11, visionOS 2, *)
final class DeterministicExecutor: TaskExecutor, @unchecked Sendable {
    private let lock = NSLock()
    /// Guarded by `lock`.
    private var ready: [UnownedJob] = []
    /// Guarded by `lock`: every job ever enqueued, for the figures.
    private var enqueued = 0

    func enqueue(_ job: consuming ExecutorJob) {
        let job = UnownedJob(job)
        lock.withLock {
            ready.append(job)
            enqueued += 1
        }
    }

    /// How many jobs are ready to run.
    var readyCount: Int { lock.withLock { ready.count } }

    /// How many jobs were ever enqueued.
    var jobCount: Int { lock.withLock { enqueued } }

    /// Runs the ready job at the index `choose` picks among `count` of them.
    ///
    /// - Returns: Whether there was a job to run.
    @discardableResult
    func runOne(choosing choose: (_ count: Int) -> Int) -> Bool {
        let job = lock.withLock { () -> UnownedJob? in
            guard !ready.isEmpty else { return nil }
            return ready.remove(at: choose(ready.count))
        }
        guard let job else { return false }
        job.runSynchronously(on: asUnownedTaskExecutor())
        return true
    }

    /// Runs jobs, each picked by `choose`, until none is ready, or until `limit` ran.
    ///
    /// - Returns: How many jobs ran.
    @discardableResult
    func runUntilIdle(limit: Int = 100_000, choosing choose: (_ count: Int) -> Int) -> Int {
        var count = 0
        while count < limit, runOne(choosing: choose) { count += 1 }
        return count
    }
}
