public import SDKEventBus

/// Records a configuration lifecycle's diagnostics, so that a test awaits a step — a rejected body,
/// a scheduled refresh — instead of sleeping: many steps fire no event to wait for.
///
/// ```swift
/// let steps = LifecycleRecorder()
/// var settings = SDKConfiguration()
/// settings.diagnostics = steps.handler
/// let sdk = SDKClient(configuration: settings, fetchService: service)
///
/// let failure = try await steps.next { $0.failure != nil }
/// ```
///
/// Works with Swift Testing and XCTest alike: a failed wait throws ``Timeout``.
public final class LifecycleRecorder: Sendable {
    /// A wait that ended before a matching step arrived.
    public struct Timeout: Error, CustomStringConvertible {
        /// What the test waited for.
        public var expected: String
        /// The steps recorded by then, in order.
        public var steps: [LifecycleDiagnostic]
        /// How long it waited.
        public var timeout: Duration

        /// What was expected and what arrived.
        public var description: String {
            "timed out after \(timeout) waiting for \(expected); steps so far: "
                + (steps.isEmpty ? "none" : steps.map { "\($0)" }.joined(separator: " | "))
        }
    }

    private struct Waiter {
        let id: UInt64
        let count: Int
        let matches: @Sendable (LifecycleDiagnostic) -> Bool
        let continuation: CheckedContinuation<Void, any Error>
    }

    private struct State {
        var steps: [LifecycleDiagnostic] = []
        var waiters: [Waiter] = []
        var nextID: UInt64 = 0
        /// The steps before this index were returned by `next`, or recorded before one it returned.
        var returnedUpTo = 0

        mutating func takeSatisfied() -> [CheckedContinuation<Void, any Error>] {
            let steps = self.steps
            let done = waiters.filter { waiter in steps.count { waiter.matches($0) } >= waiter.count }
            waiters.removeAll { waiter in done.contains { $0.id == waiter.id } }
            return done.map(\.continuation)
        }
    }

    private let state = LockedValue(State())

    /// Creates an empty recorder.
    public init() {}

    /// The hook to pass as ``LifecycleConfiguration/diagnostics``.
    public var handler: @Sendable (LifecycleDiagnostic) -> Void {
        { [self] step in record(step) }
    }

    /// Every step recorded so far, in order.
    public var steps: [LifecycleDiagnostic] { state.withLock { $0.steps } }

    private func record(_ step: LifecycleDiagnostic) {
        let done = state.withLock { state in
            state.steps.append(step)
            return state.takeSatisfied()
        }
        for waiter in done { waiter.resume() }
    }

    /// Returns once `count` steps matching `matches` have been recorded in all.
    ///
    /// - Parameters:
    ///   - count: How many matching steps, counting those already recorded.
    ///   - expectation: What the test waits for, in words, for the failure message.
    ///   - timeout: How long to wait at most, in real time.
    ///   - matches: Which steps count.
    /// - Throws: ``Timeout``; `CancellationError`.
    public func wait(
        for count: Int = 1,
        _ expectation: String = "a matching step",
        within timeout: Duration = EventRecorder<SystemEvent>.defaultTimeout,
        matching matches: @escaping @Sendable (LifecycleDiagnostic) -> Bool
    ) async throws {
        let id = state.withLock { state in
            defer { state.nextID += 1 }
            return state.nextID
        }
        let timer = Task {
            try? await Task.sleep(for: timeout)
            let (waiter, steps) = state.withLock { state in
                defer { state.waiters.removeAll { $0.id == id } }
                return (state.waiters.first { $0.id == id }, state.steps)
            }
            waiter?.continuation.resume(throwing: Timeout(expected: expectation, steps: steps, timeout: timeout))
        }
        defer { timer.cancel() }
        try await withTaskCancellationHandler {
            try await withCheckedThrowingContinuation { (continuation: CheckedContinuation<Void, any Error>) in
                let now = state.withLock { state -> Bool in
                    guard state.steps.count(where: matches) < count else { return true }
                    state.waiters.append(Waiter(id: id, count: count, matches: matches, continuation: continuation))
                    return false
                }
                if now { continuation.resume() }
            }
        } onCancel: {
            let waiter = state.withLock { state in
                defer { state.waiters.removeAll { $0.id == id } }
                return state.waiters.first { $0.id == id }
            }
            waiter?.continuation.resume(throwing: CancellationError())
        }
    }

    /// Returns the first matching step after the one an earlier `next` returned (from the first
    /// step, for the first call), once it has been recorded: a step recorded before the call counts,
    /// so a lifecycle that started before the test asked misses nothing.
    ///
    /// - Parameters:
    ///   - expectation: What the test waits for, in words, for the failure message.
    ///   - timeout: How long to wait at most, in real time.
    ///   - matches: Which step.
    /// - Returns: The step.
    /// - Throws: ``Timeout``; `CancellationError`.
    @discardableResult
    public func next(
        _ expectation: String = "a matching step",
        within timeout: Duration = EventRecorder<SystemEvent>.defaultTimeout,
        matching matches: @escaping @Sendable (LifecycleDiagnostic) -> Bool
    ) async throws -> LifecycleDiagnostic {
        let skipped = state.withLock { $0.steps[..<$0.returnedUpTo].count(where: matches) }
        try await wait(for: skipped + 1, expectation, within: timeout, matching: matches)
        return state.withLock { state in
            var found = 0
            for index in state.steps.indices where matches(state.steps[index]) {
                found += 1
                guard found == skipped + 1 else { continue }
                state.returnedUpTo = max(state.returnedUpTo, index + 1)
                return state.steps[index]
            }
            preconditionFailure("wait(for:) returned before the step was recorded")
        }
    }
}
