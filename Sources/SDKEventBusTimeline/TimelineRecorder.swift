internal import Foundation
internal import SDKEventBusCore

/// What a bus's timeline keeps: the ring of the last records and the signposts, and the one sink
/// the engine tells while either is on.
///
/// Kept on the bus (``BusStorage/timelineState(orMake:)``), so that every ``EventTimeline`` handle of
/// a bus reaches the same one, and its records outlive a ``EventTimeline/stop()``. The engine is
/// told nothing while both are off: the recorder uninstalls itself.
final class TimelineRecorder: TimelineSink, @unchecked Sendable {
    // @unchecked: `state` is behind its lock; `signposts` is set once under the bus's lock before
    // the recorder is installed, and read by the engine only while installed.

    /// A record as the engine told it, turned into a ``TimelineRecord`` when read.
    enum Raw {
        case fire(stamp: UInt64, end: UInt64, event: Int, thread: UInt64, isMainThread: Bool)
        case delivery(fire: UInt64, event: Int, laneName: String, site: UInt32, start: UInt64, end: UInt64)
        case diagnostic(BusDiagnostic, time: UInt64)
        case step(name: String, detail: String, phase: TimelineStepPhase, time: UInt64)
    }

    struct State {
        var ring: [Raw] = []
        /// Where the next record goes once the ring is full.
        var next = 0
        var capacity = 0
        var isRecording = false
        /// When recording started: the records' time 0.
        var origin: UInt64 = 0
        var signposts: (any TimelineSink)?
    }

    let state = LockedValue(State())

    // MARK: The engine's sink

    func fired(stamp: UInt64, end: UInt64, event: Int, thread: UInt64, isMainThread: Bool) {
        let signposts = append(.fire(stamp: stamp, end: end, event: event, thread: thread, isMainThread: isMainThread))
        signposts?.fired(stamp: stamp, end: end, event: event, thread: thread, isMainThread: isMainThread)
    }

    func willDeliver(fire: UInt64, event: Int, laneName: String) -> UInt64 {
        #if canImport(os)
            state.withLock { $0.signposts }?.willDeliver(fire: fire, event: event, laneName: laneName) ?? 0
        #else
            // No signposts where `os` does not exist: no lock for them per delivery.
            0
        #endif
    }

    func delivered(
        _ delivery: (fire: UInt64, event: Int, lane: Int, laneName: String, listener: UInt64, site: UInt32),
        start: UInt64, end: UInt64, token: UInt64
    ) {
        let signposts = append(
            .delivery(
                fire: delivery.fire, event: delivery.event, laneName: delivery.laneName, site: delivery.site,
                start: start, end: end))
        signposts?.delivered(delivery, start: start, end: end, token: token)
    }

    func noted(_ diagnostic: BusDiagnostic, time: UInt64) {
        let signposts = append(.diagnostic(diagnostic, time: time))
        signposts?.noted(diagnostic, time: time)
    }

    func noted(step name: String, detail: String, phase: TimelineStepPhase, time: UInt64) {
        let signposts = append(.step(name: name, detail: detail, phase: phase, time: time))
        signposts?.noted(step: name, detail: detail, phase: phase, time: time)
    }

    /// Appends `record` if recording; returns the signposts to tell too.
    private func append(_ record: Raw) -> (any TimelineSink)? {
        state.withLock { state in
            guard state.isRecording else { return state.signposts }
            if state.ring.count < state.capacity {
                state.ring.append(record)
            } else {
                state.ring[state.next] = record
                state.next = (state.next + 1) % state.capacity
            }
            return state.signposts
        }
    }

    // MARK: Reading

    /// The records, oldest first, as ``TimelineRecord``s.
    func records(of storage: BusStorage) -> [TimelineRecord] {
        let (raw, origin) = state.withLock { state in
            (Array(state.ring[state.next...] + state.ring[..<state.next]), state.origin)
        }
        // Each site is resolved once.
        var sites: [UInt32: String] = [:]
        func seconds(_ time: UInt64) -> TimeInterval { time > origin ? Double(time - origin) / 1e9 : 0 }
        func site(_ index: UInt32) -> String {
            if let known = sites[index] { return known }
            let text = storage.site(index).map { "\(String(cString: $0.file)):\($0.line)" } ?? ""
            sites[index] = text
            return text
        }
        let records = raw.map { raw -> TimelineRecord in
            switch raw {
            case .fire(let stamp, let end, let event, let thread, let isMainThread):
                var record = TimelineRecord(kind: .fire, time: seconds(stamp))
                record.duration = end > stamp ? Double(end - stamp) / 1e9 : 0
                record.fire = stamp
                record.event = storage.eventName(event)
                record.thread = isMainThread ? "main thread" : "thread \(thread)"
                return record
            case .delivery(let fire, let event, let laneName, let siteIndex, let start, let end):
                var record = TimelineRecord(kind: fire == 0 ? .replay : .delivery, time: seconds(start))
                record.duration = end > start ? Double(end - start) / 1e9 : 0
                record.fire = fire
                record.event = storage.eventName(event)
                record.lane = laneName
                record.subscription = site(siteIndex)
                // A fire's stamp is when it was fired.
                if fire > 0, start > fire { record.waited = Double(start - fire) / 1e9 }
                return record
            case .diagnostic(let diagnostic, let time):
                var record = TimelineRecord(kind: .diagnostic, time: seconds(time))
                record.name = Self.name(of: diagnostic)
                record.detail = diagnostic.description
                if case .slowListener(let event, _, _, let duration) = diagnostic {
                    record.event = event
                    record.duration = duration
                }
                return record
            case .step(let name, let detail, let phase, let time):
                let kind: TimelineRecord.Kind = phase == .begin ? .stepBegan : phase == .end ? .stepEnded : .step
                var record = TimelineRecord(kind: kind, time: seconds(time))
                record.name = name
                record.detail = detail
                return record
            }
        }
        // Told from several threads: in the order they happened.
        let ordered = records.enumerated().sorted { ($0.element.time, $0.offset) < ($1.element.time, $1.offset) }
        return ordered.map(\.element)
    }

    /// A diagnostic's short name, for a trace.
    static func name(of diagnostic: BusDiagnostic) -> String {
        switch diagnostic {
        case .backlog: "backlog"
        case .sequenceDropped: "events dropped"
        case .slowListener: "slow listener"
        case .subscribedToReleasedBus: "released bus"
        @unknown default: "diagnostic"
        }
    }
}
