internal import Foundation
internal import SDKEventBusCore

/// What a bus's timeline keeps: the ring of the last records and the signposts, and the one sink
/// the engine tells while either is on.
///
/// Kept on the bus (``BusStorage/withTimelineState(_:)``), so that every ``EventTimeline`` handle of
/// a bus reaches the same one, and its records outlive a ``EventTimeline/stop()``. The engine is
/// told nothing while both are off: the recorder uninstalls itself.
final class TimelineRecorder: TimelineSink, @unchecked Sendable {
    // @unchecked: `state` is behind its lock; `signposts` is set once under the bus's lock before
    // the recorder is installed, and read by the engine only while installed.

    /// A record as the engine told it, turned into a ``TimelineRecord`` when read.
    enum Raw {
        case fire(TimelineFire)
        case delivery(TimelineDelivery)
        case note(TimelineNote)

        var time: UInt64 {
            switch self {
            case .fire(let fire): fire.stamp
            case .delivery(let delivery): delivery.start
            case .note(.diagnostic(_, let time)), .note(.step(_, _, _, let time)): time
            }
        }
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

    func fired(_ fire: TimelineFire) {
        let signposts = append(.fire(fire))
        signposts?.fired(fire)
    }

    func willDeliver(_ delivery: TimelineDelivery) -> UInt64 {
        state.withLock { $0.signposts }?.willDeliver(delivery) ?? 0
    }

    func delivered(_ delivery: TimelineDelivery, token: UInt64) {
        let signposts = append(.delivery(delivery))
        signposts?.delivered(delivery, token: token)
    }

    func noted(_ note: TimelineNote) {
        let signposts = append(.note(note))
        signposts?.noted(note)
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
            let text = storage.site(index).map { $0.file.isEmpty ? "" : "\($0.file):\($0.line)" } ?? ""
            sites[index] = text
            return text
        }
        let records = raw.map { raw -> TimelineRecord in
            switch raw {
            case .fire(let fire):
                var record = TimelineRecord(kind: .fire, time: seconds(fire.stamp))
                record.duration = fire.end > fire.stamp ? Double(fire.end - fire.stamp) / 1e9 : 0
                record.fire = fire.stamp
                record.event = storage.eventName(fire.event)
                record.thread = fire.isMainThread ? "main thread" : "thread \(fire.thread)"
                return record
            case .delivery(let delivery):
                let kind: TimelineRecord.Kind = delivery.fire == 0 ? .replay : .delivery
                var record = TimelineRecord(kind: kind, time: seconds(delivery.start))
                record.duration = delivery.end > delivery.start ? Double(delivery.end - delivery.start) / 1e9 : 0
                record.fire = delivery.fire
                record.event = storage.eventName(delivery.event)
                record.lane = delivery.laneName
                record.subscription = site(delivery.site)
                // A fire's stamp is when it was fired.
                if delivery.fire > 0, delivery.start > delivery.fire {
                    record.waited = Double(delivery.start - delivery.fire) / 1e9
                }
                return record
            case .note(.diagnostic(let diagnostic, let time)):
                var record = TimelineRecord(kind: .diagnostic, time: seconds(time))
                record.name = Self.name(of: diagnostic)
                record.detail = diagnostic.description
                if case .slowListener(let event, _, _, let duration) = diagnostic {
                    record.event = event
                    record.duration = duration
                }
                return record
            case .note(.step(let name, let detail, let phase, let time)):
                let kind: TimelineRecord.Kind =
                    switch phase {
                    case .instant: .step
                    case .begin: .stepBegan
                    case .end: .stepEnded
                    }
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
        @unknown default: "diagnostic"
        }
    }
}
