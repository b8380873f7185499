import Foundation
import SDKEventBus

/// Collects a lifecycle's diagnostics, so that a test awaits a step (a rejected body fires no
/// event to wait for) instead of sleeping.
final class LifecycleLog: @unchecked Sendable {
    // @unchecked: `recorded` and `watchers` are only touched under `lock`.
    private struct Watcher {
        let count: Int
        let matches: @Sendable (LifecycleDiagnostic) -> Bool
        let continuation: CheckedContinuation<Void, Never>
    }

    private let lock = NSLock()
    private var recorded: [LifecycleDiagnostic] = []
    private var watchers: [Watcher] = []

    var steps: [LifecycleDiagnostic] { lock.withLock { recorded } }

    /// The handler to pass as ``LifecycleConfiguration/diagnostics``.
    var handler: @Sendable (LifecycleDiagnostic) -> Void { { [self] in record($0) } }

    private func record(_ step: LifecycleDiagnostic) {
        let ready = lock.withLock {
            recorded.append(step)
            let isDone = { (watcher: Watcher) in self.recorded.filter(watcher.matches).count >= watcher.count }
            let ready = watchers.filter(isDone)
            watchers.removeAll(where: isDone)
            return ready.map(\.continuation)
        }
        for continuation in ready { continuation.resume() }
    }

    /// Returns once `count` steps matching `matches` have been recorded in all.
    func wait(for count: Int = 1, _ matches: @escaping @Sendable (LifecycleDiagnostic) -> Bool) async {
        await withCheckedContinuation { (continuation: CheckedContinuation<Void, Never>) in
            let now = lock.withLock {
                guard recorded.filter(matches).count < count else { return true }
                watchers.append(Watcher(count: count, matches: matches, continuation: continuation))
                return false
            }
            if now { continuation.resume() }
        }
    }
}

extension LifecycleDiagnostic {
    var isFetchFailed: Bool { if case .fetchFailed = self { true } else { false } }
    var isStopped: Bool { if case .stopped = self { true } else { false } }
    var appliedChange: ConfigChange? { if case .configApplied(let change) = self { change } else { nil } }
    var failure: (any Error)? { if case .fetchFailed(let error, _, _) = self { error } else { nil } }
}
