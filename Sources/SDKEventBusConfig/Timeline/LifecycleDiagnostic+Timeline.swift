internal import Foundation
internal import SDKEventBusCore

extension LifecycleDiagnostic {
    /// Records the step on the timeline of `storage`'s bus, if one records (see
    /// ``/SDKEventBusCore/CatalogBus``'s `timeline`, in `SDKEventBusTimeline`): a fetch is a step
    /// from its start to its end, the rest are instants, and readiness decided is one too.
    ///
    /// With no timeline recording, it costs a lock and a check per step.
    func record(on storage: BusStorage) {
        let (name, phase, then) = timelineStep
        storage.recordStep(name, detail: { description }, phase: phase)
        if let then { storage.recordStep(then, detail: { description }, phase: .instant) }
    }

    /// The step a timeline shows for this one: its name, whether it starts or ends a fetch, and the
    /// instant that follows it, if any (readiness decided, a retry scheduled).
    private var timelineStep: (String, TimelineStepPhase, then: String?) {
        switch self {
        case .fetchStarted: ("fetch", .begin, nil)
        case .configApplied(let change): ("fetch", .end, change == .first ? "ready" : nil)
        case .fetchFailed: ("fetch", .end, "retry scheduled")
        case .initialConfigApplied(let change): ("initial config", .instant, change == .first ? "ready" : nil)
        case .cacheLoaded(let change): ("cache loaded", .instant, change == .first ? "ready" : nil)
        case .cacheRejected: ("cache rejected", .instant, nil)
        case .cacheCleared: ("cache cleared", .instant, nil)
        case .cacheSaved: ("cache saved", .instant, nil)
        case .cacheWriteFailed: ("cache write failed", .instant, nil)
        case .refreshScheduled: ("refresh scheduled", .instant, nil)
        case .degradedStart: ("ready (degraded)", .instant, nil)
        case .readinessFailed: ("readiness failed", .instant, nil)
        case .refreshRequested: ("refresh requested", .instant, nil)
        case .refreshSkipped: ("refresh skipped", .instant, nil)
        case .refreshPaused: ("refresh paused", .instant, nil)
        case .refreshResumed: ("refresh resumed", .instant, nil)
        case .refreshHeld: ("refresh held", .instant, nil)
        case .stopped: ("stopped", .instant, nil)
        }
    }
}
