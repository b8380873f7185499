@testable import SDKEventBus
@testable import SDKEventBusConfig
@testable import SDKEventBusCore
@testable import SDKEventBusWire

/// Collects lifecycle diagnostics and lets a test await a particular step, instead of sleeping.
final class DiagnosticsRecorder: Sendable {
    private struct State {
        var steps: [LifecycleDiagnostic] = []
        var watchers:
            [(matches: @Sendable (LifecycleDiagnostic) -> Bool, continuation: CheckedContinuation<Void, Never>)] = []
    }

    private let state = LockedValue(State())

    var steps: [LifecycleDiagnostic] { state.withLock { $0.steps } }

    var handler: @Sendable (LifecycleDiagnostic) -> Void {
        { [self] step in record(step) }
    }

    private func record(_ step: LifecycleDiagnostic) {
        let ready = state.withLock { state in
            state.steps.append(step)
            let ready = state.watchers.filter { $0.matches(step) }
            state.watchers.removeAll { $0.matches(step) }
            return ready.map(\.continuation)
        }
        for continuation in ready { continuation.resume() }
    }

    /// Returns once `count` steps matching `matches` have been recorded.
    func wait(for count: Int = 1, _ matches: @escaping @Sendable (LifecycleDiagnostic) -> Bool) async {
        while true {
            let seen = state.withLock { $0.steps.filter(matches).count }
            if seen >= count { return }
            await withCheckedContinuation { (continuation: CheckedContinuation<Void, Never>) in
                let resumeNow = state.withLock { state in
                    if state.steps.filter(matches).count > seen { return true }
                    state.watchers.append((matches, continuation))
                    return false
                }
                if resumeNow { continuation.resume() }
            }
        }
    }
}

extension LifecycleDiagnostic {
    var isFetchStarted: Bool { if case .fetchStarted = self { true } else { false } }
    var isFetchFailed: Bool { if case .fetchFailed = self { true } else { false } }
    var isCacheSaved: Bool { if case .cacheSaved = self { true } else { false } }
}
