import Foundation

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
/// switch await FirstResult.run(timeout: 3, clock: clock) { await bus.flush() } {
/// case .finished: break
/// case .cancelled, .timedOut: abandoned.append(.delivery)
/// }
/// ```
enum FirstResult {
    /// How a wait ended.
    enum Ending<Value: Sendable>: Sendable {
        /// The operation returned first; its value is boxed, so that the layout of this enum does
        /// not depend on its type and its value witnesses stay small.
        case finished(Boxed<Value>)
        /// The waiting task was cancelled first.
        case cancelled
        /// The deadline passed first.
        case timedOut
    }

    /// Runs `operation` in a task of its own and returns the first ending.
    ///
    /// - Parameters:
    ///   - timeout: How long to wait at most, in seconds on `clock`; `nil` waits without a deadline.
    ///   - clock: The clock that measures `timeout`.
    ///   - operation: The work; it runs in a new task, cancelled as soon as the wait ends otherwise.
    /// - Returns: The operation's value, or why the wait ended without it.
    static func run<Value: Sendable>(
        timeout: TimeInterval? = nil,
        clock: any TimerClock = SystemTimerClock(),
        _ operation: @escaping @Sendable () async -> Value
    ) async -> Ending<Value> {
        switch await race(timeout: timeout, clock: clock, operation) {
        case .finished(let value): .finished(Boxed(value.value as! Value))
        case .cancelled: .cancelled
        case .timedOut: .timedOut
        }
    }

    /// The race behind ``run(timeout:clock:_:)``, with the value type erased: one copy of the race
    /// serves every caller.
    private static func race(
        timeout: TimeInterval?,
        clock: any TimerClock,
        _ operation: @escaping @Sendable () async -> any Sendable
    ) async -> Ending<any Sendable> {
        let race = Race()
        return await withTaskCancellationHandler {
            await withCheckedContinuation { (continuation: Race.Waiter) in
                race.register(continuation, timeout: timeout, clock: clock, operation: operation)
            }
        } onCancel: {
            race.end(.cancelled)
        }
    }

    /// One wait: a lock around ``FirstResultStateMachine``.
    private final class Race: Sendable {
        typealias Waiter = CheckedContinuation<Ending<any Sendable>, Never>

        private let machine = LockedValue(FirstResultStateMachine<Waiter, Task<Void, Never>>())

        func register(
            _ waiter: Waiter,
            timeout: TimeInterval?,
            clock: any TimerClock,
            operation: @escaping @Sendable () async -> any Sendable
        ) {
            let early = machine.withLock { machine -> Waiter? in
                guard machine.register(waiter) == .start else { return waiter }
                // Created under the lock, so that an ending that lands meanwhile finds the tasks to
                // cancel. Creating a task runs nothing here: its body starts on another thread and
                // takes this lock only to end the race.
                machine.started(Task.inheritingExecutorPreference { self.end(.finished(Boxed(await operation()))) })
                if let timeout {
                    machine.started(
                        Task.inheritingExecutorPreference {
                            guard (try? await clock.sleep(for: timeout)) != nil else { return }
                            self.end(.timedOut)
                        })
                }
                return nil
            }
            early?.resume(returning: .cancelled)
        }

        func end(_ ending: Ending<any Sendable>) {
            guard let (waiter, tasks) = machine.withLock({ $0.end() }) else { return }
            // Cancelled before the waiter resumes: once the wait has ended, the operation has been
            // told to stop (or has finished).
            for task in tasks { task.cancel() }
            waiter.resume(returning: ending)
        }
    }
}
