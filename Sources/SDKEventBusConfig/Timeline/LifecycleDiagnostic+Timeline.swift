internal import Foundation
internal import SDKEventBusCore

extension LifecycleDiagnostic {
    /// Records the step on the timeline of `storage`'s bus, if one records (see
    /// ``/SDKEventBusCore/CatalogBus``'s `timeline`, in `SDKEventBusTimeline`): a fetch is a step
    /// from its start to its end, the rest are instants, and readiness decided is one too.
    ///
    /// With no timeline recording, it costs a lock and a check.
    func record(on storage: BusStorage) {
        guard storage.timeline != nil else { return }
        for (name, phase) in timelineSteps { storage.recordStep(name, detail: { description }, phase: phase) }
    }

    /// The steps a timeline shows for this one: its name, and whether it starts or ends a fetch.
    private var timelineSteps: [(String, TimelineStepPhase)] {
        switch self {
        case .fetchStarted: [("fetch", .begin)]
        case .configApplied(let change): [("fetch", .end)] + (change == .first ? [("ready", .instant)] : [])
        case .fetchFailed: [("fetch", .end), ("retry scheduled", .instant)]
        case .initialConfigApplied(let change):
            [("initial config", .instant)] + (change == .first ? [("ready", .instant)] : [])
        case .cacheLoaded(let change): [("cache loaded", .instant)] + (change == .first ? [("ready", .instant)] : [])
        case .cacheRejected: [("cache rejected", .instant)]
        case .cacheCleared: [("cache cleared", .instant)]
        case .cacheSaved: [("cache saved", .instant)]
        case .cacheWriteFailed: [("cache write failed", .instant)]
        case .refreshScheduled: [("refresh scheduled", .instant)]
        case .degradedStart: [("ready (degraded)", .instant)]
        case .readinessFailed: [("readiness failed", .instant)]
        case .refreshRequested: [("refresh requested", .instant)]
        case .refreshSkipped: [("refresh skipped", .instant)]
        case .refreshPaused: [("refresh paused", .instant)]
        case .refreshResumed: [("refresh resumed", .instant)]
        case .refreshHeld: [("refresh held", .instant)]
        case .stopped: [("stopped", .instant)]
        }
    }
}
