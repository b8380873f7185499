#if canImport(Observation)
    import Foundation
    public import Observation

    /// The client's status as an observable model, for a SwiftUI view to bind to: readiness, the
    /// source of the configuration, when it last changed, and the last error.
    ///
    /// Updated on the main actor shortly after each change, in order (each update applies the
    /// latest status, so a burst of changes costs one update).
    ///
    /// ```swift
    /// struct SDKBadge: View {
    ///     let model: ObservableSDKStatus   // sdk.observableStatus
    ///     var body: some View {
    ///         Text(model.status.readiness.map { "ready from \($0.source)" } ?? "loading…")
    ///     }
    /// }
    /// ```
    @available(iOS 17, macOS 14, tvOS 17, watchOS 10, *)
    @MainActor
    @Observable
    public final class ObservableSDKStatus {
        /// The client's status: readiness, the source of the configuration, when it last changed,
        /// and the last error.
        public private(set) var status: SDKStatus

        init(_ status: SDKStatus) {
            self.status = status
        }

        /// Takes `status`, if it differs, so that views update only on a change.
        func apply(_ status: SDKStatus) {
            if !status.says(sameAs: self.status) { self.status = status }
        }
    }
#endif

/// Applies a client's status to its observable model on the main actor, coalescing bursts: each
/// main-actor job applies the status as it is then, so updates never run out of order.
final class StatusPublisher: Sendable {
    private struct State {
        var isScheduled = false
        /// The model, once someone asked for it; stored untyped because of its availability.
        var model: (any AnyObject & Sendable)?
    }

    private let state = LockedValue(State())
    private let current: @Sendable () -> SDKStatus

    init(current: @escaping @Sendable () -> SDKStatus) {
        self.current = current
    }

    /// Schedules an update of the model, if there is one and none is scheduled.
    func statusChanged() {
        let mustSchedule = state.withLock { state -> Bool in
            guard state.model != nil, !state.isScheduled else { return false }
            state.isScheduled = true
            return true
        }
        guard mustSchedule else { return }
        Task { @MainActor in self.applyLatest() }
    }

    @MainActor
    private func applyLatest() {
        #if canImport(Observation)
            if #available(iOS 17, macOS 14, tvOS 17, watchOS 10, *) {
                let model = state.withLock { state in
                    state.isScheduled = false
                    return state.model as? ObservableSDKStatus
                }
                model?.apply(current())
            }
        #endif
    }

    #if canImport(Observation)
        /// The model, created on first use.
        @available(iOS 17, macOS 14, tvOS 17, watchOS 10, *)
        @MainActor
        var model: ObservableSDKStatus {
            if let model = state.withLock({ $0.model }) as? ObservableSDKStatus { return model }
            let model = ObservableSDKStatus(current())
            state.withLock { $0.model = model }
            return model
        }
    #endif
}
