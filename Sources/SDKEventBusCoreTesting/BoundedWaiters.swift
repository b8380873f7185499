package import Foundation

/// The waiters of a test hook (`waitForFetches`, `waitForSleepers`, a recorder's `waitUntil`…):
/// each is resumed exactly once, by its condition, its bound or its task's cancellation, whichever
/// comes first, even when the bound or the cancellation comes before the waiter has registered.
///
/// A plain value kept in its owner's locked state, so that the owner checks a condition and
/// registers a waiter in one step; the owner resumes what it takes after releasing the lock. An
/// entry lives from ``makeID()`` until its waiter is resumed, so nothing accumulates however waits
/// end. ``boundedWait(within:register:end:)`` drives one wait.
///
/// `package`: the configuration's doubles in `SDKEventBusTesting` (the test clock, the scripted fetch
/// service, the readiness hooks) keep their waiters here too.
package struct BoundedWaiters<Condition: Sendable>: Sendable {
    /// What a waiter suspends on.
    package typealias Continuation = CheckedContinuation<Void, any Error>

    private enum Entry {
        /// The id is handed out; the waiter has not registered yet.
        case registering
        /// The bound passed or the task was cancelled before the waiter registered.
        case ended(any Error)
        /// Suspended until its condition holds.
        case waiting(Condition, Continuation)
    }

    private var entries: [UInt64: Entry] = [:]
    private var nextID: UInt64 = 0

    /// Creates an empty set.
    package init() {}

    /// How many waiters are registering or suspended: the bookkeeping tests check stays bounded.
    package var count: Int { entries.count }

    /// The suspended waiters and their conditions, for an owner that must check conditions outside
    /// its lock because they are the caller's code.
    package var waiting: [(id: UInt64, condition: Condition)] {
        entries.compactMap { id, entry in
            guard case .waiting(let condition, _) = entry else { return nil }
            return (id, condition)
        }
    }

    /// Hands out the id of a new waiter, which then either registers or is discarded.
    package mutating func makeID() -> UInt64 {
        defer { nextID += 1 }
        entries[nextID] = .registering
        return nextID
    }

    /// Registers waiter `id`, unless it has already ended.
    ///
    /// - Returns: The error to resume `continuation` with at once, when the bound passed or the task
    ///   was cancelled before the waiter registered; `nil` once it is suspended.
    package mutating func register(
        _ id: UInt64, _ condition: Condition, _ continuation: Continuation
    ) -> (any Error)? {
        if case .ended(let error) = entries[id] {
            entries[id] = nil
            return error
        }
        entries[id] = .waiting(condition, continuation)
        return nil
    }

    /// Forgets waiter `id`, whose condition held when it came to register.
    package mutating func discard(_ id: UInt64) {
        entries[id] = nil
    }

    /// Ends waiter `id` with `error`, for its bound or its task's cancellation.
    ///
    /// - Returns: Its continuation, to resume with `error`, if it was suspended; `nil` when it has not
    ///   registered yet (its registration then fails with `error`) or was resumed already.
    package mutating func end(_ id: UInt64, with error: any Error) -> Continuation? {
        switch entries[id] {
        case .registering:
            entries[id] = .ended(error)
            return nil
        case .waiting(_, let continuation):
            entries[id] = nil
            return continuation
        case .ended, nil:
            return nil
        }
    }

    /// Takes every suspended waiter whose condition holds.
    ///
    /// - Parameter holds: Checks a condition; it runs under the owner's lock, so it must be the
    ///   owner's own code, never the caller's.
    /// - Returns: The continuations to resume.
    package mutating func takeAll(where holds: (Condition) -> Bool) -> [Continuation] {
        var taken: [Continuation] = []
        for (id, entry) in entries {
            guard case .waiting(let condition, let continuation) = entry, holds(condition) else { continue }
            entries[id] = nil
            taken.append(continuation)
        }
        return taken
    }

    /// Takes the waiters `ids` that are still suspended.
    ///
    /// - Parameter ids: Waiters whose condition was found to hold outside the lock.
    /// - Returns: The continuations to resume.
    package mutating func take(_ ids: some Sequence<UInt64>) -> [Continuation] {
        ids.compactMap { id in
            guard case .waiting(_, let continuation) = entries[id] else { return nil }
            entries[id] = nil
            return continuation
        }
    }
}

/// Suspends a test hook's caller until the hook resumes it, its bound passes, or its task is
/// cancelled.
///
/// The bound is measured in real time: a hook waits for the code under test,
/// which may run on a test clock, and a test clock moves only when the test advances it, which a
/// test suspended here cannot do.
///
/// - Parameters:
///   - timeout: The bound, in seconds.
///   - register: Registers the continuation in the owner's ``BoundedWaiters`` under its lock, or
///     resumes it at once when the condition holds already or the waiter has ended; runs once,
///     before this function suspends.
///   - end: Ends the waiter, with the owner's ``WaitTimeoutError`` when `timedOut`, else with
///     `CancellationError`: under the owner's lock, ``BoundedWaiters/end(_:with:)`` and, after it,
///     resuming what it returns. Called at most twice, from any thread.
/// - Throws: What the continuation is resumed with.
package func boundedWait(
    within timeout: TimeInterval,
    register: (CheckedContinuation<Void, any Error>) -> Void,
    end: @escaping @Sendable (_ timedOut: Bool) -> Void
) async throws {
    try await withThrowingTaskGroup(of: Void.self) { group in
        group.addTask {
            // Cancelled when the wait ends first, or with the waiting task.
            guard (try? await sleepInRealTime(for: timeout)) != nil else { return }
            end(true)
        }
        defer { group.cancelAll() }
        try await withTaskCancellationHandler {
            try await withCheckedThrowingContinuation(register)
        } onCancel: {
            end(false)
        }
    }
}

/// Suspends for `interval` of real time, as the bound of a wait: the core's testing part takes no
/// clock of the configuration product's.
///
/// - Parameter interval: How long, in seconds: none for a negative interval or NaN, and as long as
///   can be counted (centuries) for one too long to count.
/// - Throws: `CancellationError` when the task is cancelled, before or while it sleeps.
private func sleepInRealTime(for interval: TimeInterval) async throws {
    let nanoseconds = interval * 1e9
    try await Task.sleep(nanoseconds: nanoseconds > 0 ? (nanoseconds < 1.8e19 ? UInt64(nanoseconds) : .max) : 0)
}
