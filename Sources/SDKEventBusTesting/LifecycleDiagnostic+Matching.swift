public import Foundation
public import SDKEventBusConfig

extension LifecycleDiagnostic {
    /// For ``/SDKEventBusConfig/LifecycleDiagnostic/configApplied(_:)``, what the store did with the fetched
    /// configuration; `nil` for every other step.
    ///
    /// ```swift
    /// try await steps.wait(for: 2, "two applied configurations") { $0.appliedChange != nil }
    /// ```
    public var appliedChange: ConfigChange? {
        if case .configApplied(let change) = self { change } else { nil }
    }

    /// For ``/SDKEventBusConfig/LifecycleDiagnostic/fetchFailed(_:attempt:retryIn:)``, the error; `nil` for every
    /// other step.
    public var failure: (any Error)? {
        if case .fetchFailed(let error, _, _) = self { error } else { nil }
    }

    /// For ``/SDKEventBusConfig/LifecycleDiagnostic/fetchFailed(_:attempt:retryIn:)``, how long until the next attempt,
    /// in seconds; `nil` for every other step.
    public var retryDelay: TimeInterval? {
        if case .fetchFailed(_, _, let delay) = self { delay } else { nil }
    }

    /// Whether this is ``/SDKEventBusConfig/LifecycleDiagnostic/stopped``.
    public var isStopped: Bool {
        if case .stopped = self { true } else { false }
    }
}
