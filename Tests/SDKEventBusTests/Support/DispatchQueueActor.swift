import Dispatch

/// A serial executor that runs each job on a serial dispatch queue: on a thread outside the
/// cooperative pool.
///
/// Once `queue.sync {}` returns, every job enqueued before it has run until its task suspended or
/// ended.
@available(macOS 14, iOS 17, tvOS 17, watchOS 10, *)
final class DispatchQueueExecutor: SerialExecutor {
    let queue: DispatchQueue

    init(label: String) {
        queue = DispatchQueue(label: label)
    }

    func enqueue(_ job: consuming ExecutorJob) {
        let job = UnownedJob(job)
        queue.async { job.runSynchronously(on: self.asUnownedSerialExecutor()) }
    }
}

/// An actor whose jobs run on a dispatch queue of its own, off the cooperative pool.
///
/// For a long CPU-bound loop: on the pool it would hold one of the few threads (two here) for its
/// whole run and starve every suite running in parallel.
///
/// ```swift
/// await DispatchQueueActor.run("million cycles") { _ in
///     for _ in 0..<1_000_000 { await bus.off(bus.on(.ready) { _ in }) }
/// }
/// ```
@available(macOS 14, iOS 17, tvOS 17, watchOS 10, *)
actor DispatchQueueActor {
    private let executor: DispatchQueueExecutor

    nonisolated var unownedExecutor: UnownedSerialExecutor {
        executor.asUnownedSerialExecutor()
    }

    init(label: String) {
        executor = DispatchQueueExecutor(label: label)
    }

    /// Runs `body` isolated to a new actor: on a dispatch queue of its own.
    static func run<Result: Sendable>(
        _ label: String,
        _ body: @Sendable (isolated DispatchQueueActor) async -> Result
    ) async -> Result {
        await body(DispatchQueueActor(label: label))
    }
}

/// The global actor whose jobs run on one dispatch queue, off the cooperative pool.
///
/// A task made with `Task { @QueueActor in … }` is enqueued straight on the queue: it runs even while
/// every thread of the pool is busy, and a test that waits with `QueueActor.executor.queue.sync {}`
/// knows that the job has run until the task suspended or ended.
@available(macOS 14, iOS 17, tvOS 17, watchOS 10, *)
@globalActor actor QueueActor {
    static let shared = QueueActor()
    static let executor = DispatchQueueExecutor(label: "SDKEventBusTests.QueueActor")

    nonisolated var unownedExecutor: UnownedSerialExecutor {
        Self.executor.asUnownedSerialExecutor()
    }
}
