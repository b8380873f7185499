import Foundation

/// What ``SDKStatus`` reports, kept up to date by the lifecycle and read synchronously by the client.
final class StatusRecorder: Sendable {
    private struct State {
        var source: ConfigSource?
        var lastUpdated: Date?
        var lastSuccessfulFetchDate: Date?
        var lastFetchError: (any Error)?
        var consecutiveFailures = 0
    }

    private let state = LockedValue(State())

    /// Records a configuration the store took (or not) from `source`.
    func applied(_ change: ConfigChange, from source: ConfigSource) {
        state.withLock { state in
            switch change {
            case .first, .updated:
                state.source = source
                state.lastUpdated = Date()
            case .unchanged:
                state.source = source
            case .ignored:
                break
            }
        }
    }

    func fetchSucceeded() {
        state.withLock { state in
            state.lastSuccessfulFetchDate = Date()
            state.lastFetchError = nil
            state.consecutiveFailures = 0
        }
    }

    func fetchFailed(_ error: any Error) {
        state.withLock { state in
            state.lastFetchError = error
            state.consecutiveFailures += 1
        }
    }

    func cacheFailed(_ error: any Error) {
        state.withLock { $0.lastFetchError = error }
    }

    func snapshot(readiness: Readiness?, isShutDown: Bool) -> SDKStatus {
        state.withLock { state in
            SDKStatus(
                isReady: readiness != nil,
                isShutDown: isShutDown,
                readiness: readiness,
                // Until the lifecycle records the first configuration's source (just after the store
                // became ready with it, so a `ready()` caller may look first), readiness says it.
                source: state.source ?? readiness?.source.configSource,
                lastUpdated: state.lastUpdated,
                lastSuccessfulFetchDate: state.lastSuccessfulFetchDate,
                lastFetchError: state.lastFetchError,
                consecutiveFailures: state.consecutiveFailures
            )
        }
    }
}
