package import Foundation
import SDKEventBusCore

/// What a recorder keeps: what it recorded, in order, and the tests waiting for a condition on it.
///
/// A condition is the test's own closure, so it never runs under the lock: it may read the
/// recorder that calls it. Each condition is checked when its wait starts and then on every record
/// made after that, against everything recorded up to that record, so a condition that holds for
/// a moment only is still seen.
///
/// `package`: the lifecycle recorder of `SDKEventBusTesting` keeps its steps in one too.
package final class RecordingLog<Element: Sendable>: Sendable {
    /// A condition on everything recorded so far.
    package typealias Condition = @Sendable ([Element]) -> Bool

    private struct State {
        var elements: [Element] = []
        var waiters = BoundedWaiters<Condition>()
    }

    /// What a registration does after checking the condition outside the lock.
    private enum Step {
        /// Something was recorded meanwhile: check again with everything recorded.
        case check([Element])
        case suspended
        case ended(any Error)
    }

    private let state = LockedValue(State())

    /// Creates an empty log.
    package init() {}

    /// Everything recorded so far, in order.
    package var elements: [Element] { state.withLock { $0.elements } }

    /// How many elements were recorded.
    package var count: Int { state.withLock { $0.elements.count } }

    /// How many waits are in progress: the bookkeeping tests check stays bounded.
    package var waiterCount: Int { state.withLock { $0.waiters.count } }

    /// Records `element`, then resumes the waiters whose condition now holds.
    package func append(_ element: Element) {
        let (elements, waiting) = state.withLock { state in
            state.elements.append(element)
            return (state.elements, state.waiters.waiting)
        }
        guard !waiting.isEmpty else { return }
        let satisfied = waiting.filter { $0.condition(elements) }.map(\.id)
        guard !satisfied.isEmpty else { return }
        for waiter in state.withLock({ $0.waiters.take(satisfied) }) { waiter.resume() }
    }

    /// Runs `body` with everything recorded so far, under the lock: for the recorder's own
    /// bookkeeping, never for a test's closure.
    package func withElements<Result>(_ body: (inout [Element]) -> Result) -> Result {
        state.withLock { body(&$0.elements) }
    }

    /// Returns once `condition` holds for what was recorded.
    ///
    /// - Parameters:
    ///   - condition: The test's condition; runs outside the lock.
    ///   - timeout: The bound, in seconds of real time.
    ///   - timeoutError: The error for a wait whose bound passed, from what was recorded by then;
    ///     runs outside the lock, so the elements' descriptions may read the recorder.
    /// - Throws: `timeoutError`'s error; `CancellationError`.
    package func wait(
        until condition: @escaping Condition,
        within timeout: TimeInterval,
        timeoutError: @escaping @Sendable ([Element]) -> WaitTimeoutError
    ) async throws {
        let id = state.withLock { $0.waiters.makeID() }
        try await boundedWait(within: timeout) { continuation in
            register(id, condition, continuation)
        } end: { [state] timedOut in
            // Copied under the lock, described after it: describing runs the elements' own code,
            // which may read this recorder.
            let error: any Error = timedOut ? timeoutError(state.withLock { $0.elements }) : CancellationError()
            state.withLock { $0.waiters.end(id, with: error) }?.resume(throwing: error)
        }
    }

    /// Checks `condition` outside the lock, then registers the waiter if nothing was recorded
    /// meanwhile; otherwise checks again with what was.
    private func register(
        _ id: UInt64, _ condition: @escaping Condition, _ continuation: CheckedContinuation<Void, any Error>
    ) {
        var elements = state.withLock { $0.elements }
        while true {
            if condition(elements) {
                state.withLock { $0.waiters.discard(id) }
                continuation.resume()
                return
            }
            let checked = elements.count
            let step = state.withLock { state -> Step in
                // Records only append: an unchanged count means the condition saw everything.
                guard state.elements.count == checked else { return .check(state.elements) }
                return state.waiters.register(id, condition, continuation).map { .ended($0) } ?? .suspended
            }
            switch step {
            case .check(let recorded): elements = recorded
            case .suspended: return
            case .ended(let error):
                continuation.resume(throwing: error)
                return
            }
        }
    }
}

extension WaitTimeoutError {
    /// What a recorder saw: how many it recorded, and the last few.
    package static func recorded<Element>(_ elements: [Element], noun: String, separator: String = ", ") -> String {
        guard !elements.isEmpty else { return "no \(noun)" }
        let shown = elements.suffix(20).map { "\($0)" }.joined(separator: separator)
        return elements.count > 20
            ? "\(elements.count) \(noun), the last 20: \(shown)" : "\(elements.count) \(noun): \(shown)"
    }
}
