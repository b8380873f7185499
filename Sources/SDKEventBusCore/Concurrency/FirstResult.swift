/// Runs an operation in a task of its own and waits for the first of its result, the waiting
/// task's cancellation, or a deadline on a clock.
///
/// Later ones are ignored.
///
/// For work that may not honour cancellation (a fetch service that bridges a completion handler, a
/// cache, a bus's `flush()` while an actor it delivers to is blocked): the waiter returns at once,
/// the operation's task is cancelled, and its late result is dropped.
///
/// Cancellation is remembered whenever it lands: before the waiter has registered (the operation
/// then never starts), or after (the operation's task is cancelled before the waiter returns). The
/// operation's task is created in the same locked step that registers the waiter, so no
/// interleaving leaves an operation running that nobody will cancel.
///
/// ```swift
/// switch await FirstResult.run(timeout: .seconds(3), clock: clock) { await bus.flush() } {
/// case .finished: break
/// case .cancelled, .timedOut: abandoned.append(.delivery)
/// }
/// ```
enum FirstResult {
    /// How a wait ended.
    enum Ending<Value: Sendable>: Sendable {
        /// The operation returned first.
        case finished(Value)
        /// The waiting task was cancelled first.
        case cancelled
        /// The deadline passed first.
        case timedOut
    }

    /// Runs `operation` in a task of its own and returns the first ending.
    ///
    /// - Parameters:
    ///   - timeout: How long to wait at most, on `clock`; `nil` waits without a deadline.
    ///   - clock: The clock that measures `timeout`.
    ///   - operation: The work; it runs in a new task, cancelled as soon as the wait ends otherwise.
    /// - Returns: The operation's value, or why the wait ended without it.
    static func run<Value: Sendable>(
        timeout: Duration? = nil,
        clock: any Clock<Duration> = ContinuousClock(),
        _ operation: @escaping @Sendable () async -> Value
    ) async -> Ending<Value> {
        let race = Race<Value>()
        return await withTaskCancellationHandler {
            await withCheckedContinuation { (continuation: CheckedContinuation<Ending<Value>, Never>) in
                race.register(continuation, timeout: timeout, clock: clock, operation: operation)
            }
        } onCancel: {
            race.end(.cancelled)
        }
    }

    /// One wait: a lock around ``FirstResultStateMachine``.
    private final class Race<Value: Sendable>: Sendable {
        typealias Waiter = CheckedContinuation<Ending<Value>, Never>

        private let machine = LockedValue(FirstResultStateMachine<Waiter, Task<Void, Never>>())

        func register(
            _ waiter: Waiter,
            timeout: Duration?,
            clock: any Clock<Duration>,
            operation: @escaping @Sendable () async -> Value
        ) {
            let early = machine.withLock { machine -> Waiter? in
                guard machine.register(waiter) == .start else { return waiter }
                // Created under the lock, so that an ending that lands meanwhile finds the tasks to
                // cancel. Creating a task runs nothing here: its body starts on another thread and
                // takes this lock only to end the race.
                machine.started(Task { self.end(.finished(await operation())) })
                if let timeout {
                    machine.started(
                        Task {
                            guard (try? await clock.sleep(for: timeout)) != nil else { return }
                            self.end(.timedOut)
                        })
                }
                return nil
            }
            early?.resume(returning: .cancelled)
        }

        func end(_ ending: Ending<Value>) {
            guard let (waiter, tasks) = machine.withLock({ $0.end() }) else { return }
            // Cancelled before the waiter resumes: once the wait has ended, the operation has been
            // told to stop (or has finished).
            for task in tasks { task.cancel() }
            waiter.resume(returning: ending)
        }
    }
}

/// The transitions of ``FirstResult``: plain synchronous state, generic over the waiter and the
/// task handles, so that tests play every interleaving without tasks.
///
/// ```
///          register          end
///  idle ─────────────▶ waiting ──────▶ ended
///    │                                   ▲
///    └──── end (cancelled early) ────────┘
/// ```
///
/// The first ``end()`` wins. One that comes before ``register(_:)`` is remembered: the registration
/// then gets ``Registration/resumeCancelled`` and nothing starts. ``end()`` hands back every task
/// started so far to cancel, and a task started after the end is handed back to cancel at once.
struct FirstResultStateMachine<Waiter, Handle> {
    /// What a registering waiter must do.
    enum Registration: Equatable {
        /// Start the work and wait.
        case start
        /// Resume at once with cancellation: the wait ended before it registered.
        case resumeCancelled
    }

    fileprivate enum State {
        case idle
        case waiting(Waiter)
        case ended
    }

    private var state = State.idle
    private var handles: [Handle] = []

    /// Whether the wait has ended.
    var hasEnded: Bool {
        if case .ended = state { return true }
        return false
    }

    /// How many started tasks are held, to cancel when the wait ends.
    var handleCount: Int { handles.count }

    /// Registers the waiter.
    mutating func register(_ waiter: Waiter) -> Registration {
        switch state {
        case .idle:
            state = .waiting(waiter)
            return .start
        case .waiting:
            preconditionFailure("a race has one waiter")
        case .ended:
            return .resumeCancelled
        }
    }

    /// Records a task that works for the wait.
    ///
    /// - Returns: The task, to cancel at once, when the wait has already ended.
    @discardableResult
    mutating func started(_ handle: Handle) -> Handle? {
        if hasEnded { return handle }
        handles.append(handle)
        return nil
    }

    /// Ends the wait, unless it has ended.
    ///
    /// - Returns: The waiter to resume (`nil` when there is none yet: the end is remembered for
    ///   its registration), and the tasks to cancel; `nil` when the wait had already ended.
    mutating func end() -> (waiter: Waiter, cancel: [Handle])? {
        switch state {
        case .idle:
            state = .ended
            return nil
        case .waiting(let waiter):
            state = .ended
            defer { handles = [] }
            return (waiter, handles)
        case .ended:
            return nil
        }
    }
}

extension FirstResultStateMachine: Sendable where Waiter: Sendable, Handle: Sendable {}
extension FirstResultStateMachine.State: Sendable where Waiter: Sendable {}
