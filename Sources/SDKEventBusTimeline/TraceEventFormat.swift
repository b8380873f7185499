public import Foundation

/// Writes timeline records in the Trace Event Format: the JSON object (`{"traceEvents": […]}`) that
/// Perfetto's UI (ui.perfetto.dev) and chrome://tracing open.
///
/// The trace has one process, named after your SDK, and in it one track per firing thread (`fire ·
/// main thread`), one per delivery lane (`main actor`, `immediate`, `actor DataManager`), one for the
/// lifecycle's steps and one for the bus's diagnostics. A fire and a delivery are complete events
/// (`"ph": "X"`) with their duration; a flow arrow (`"s"` → `"f"`) leads from each fire to each of
/// its deliveries; steps and diagnostics are instant events, and a step that takes time (a fetch)
/// is a complete event from its start to its end. Within a track, events are sorted by time, and
/// complete events nest. Times are microseconds since the timeline started.
///
/// ```swift
/// let trace = TraceEventFormat.json(bus.timeline.records(), processName: "FlagSDK")
/// ```
public enum TraceEventFormat {
    /// The records as a trace.
    ///
    /// - Parameters:
    ///   - records: What a timeline recorded (``EventTimeline/records()``), in any order.
    ///   - processName: The name the trace gives the process.
    /// - Returns: The trace, UTF-8 JSON with sorted keys.
    public static func json(_ records: [TimelineRecord], processName: String) -> Data {
        var tracks = Tracks()
        var events: [(track: Int, event: [String: Any])] = []
        let records = records.sorted { $0.time < $1.time }
        let end = records.map { $0.time + $0.duration }.max() ?? 0
        // The fires, and how many deliveries of each have an arrow, for the flow arrows.
        var fires: [UInt64: TimelineRecord] = [:]
        for record in records where record.kind == .fire { fires[record.fire] = record }
        var deliveries: [UInt64: Int] = [:]
        var openSteps: [String: [TimelineRecord]] = [:]
        for record in records {
            let ts = microseconds(record.time)
            switch record.kind {
            case .fire:
                let track = tracks.id(of: "fire · \(record.thread)", order: 0)
                events.append(
                    (
                        track,
                        complete(
                            record.event, category: "fire", ts: ts, duration: record.duration,
                            args: ["thread": record.thread, "fire": record.fire])
                    ))
            case .delivery, .replay:
                let track = tracks.id(of: record.lane, order: 1)
                var args: [String: Any] = [
                    "subscription": record.subscription.isEmpty ? "unknown" : record.subscription,
                    "waited_us": microseconds(record.waited),
                ]
                if record.kind == .delivery { args["fire"] = record.fire }
                let category = record.kind == .delivery ? "delivery" : "replay"
                events.append(
                    (track, complete(record.event, category: category, ts: ts, duration: record.duration, args: args)))
                guard record.kind == .delivery, let fire = fires[record.fire] else { continue }
                let number = deliveries[record.fire, default: 0]
                deliveries[record.fire] = number + 1
                let id = "\(record.fire).\(number)"
                let fireTrack = tracks.id(of: "fire · \(fire.thread)", order: 0)
                events.append((fireTrack, flow("s", id: id, ts: microseconds(fire.time))))
                events.append((track, flow("f", id: id, ts: ts)))
            case .step:
                let track = tracks.id(of: "lifecycle", order: 2)
                events.append((track, instant(record.name, ts: ts, detail: record.detail)))
            case .stepBegan:
                openSteps[record.name, default: []].append(record)
            case .stepEnded:
                let track = tracks.id(of: "lifecycle", order: 2)
                guard let began = openSteps[record.name]?.popLast() else {
                    events.append((track, instant(record.name, ts: ts, detail: record.detail)))
                    continue
                }
                events.append(
                    (
                        track,
                        complete(
                            began.name, category: "lifecycle", ts: microseconds(began.time),
                            duration: record.time - began.time, args: ["began": began.detail, "ended": record.detail])
                    ))
            case .diagnostic:
                events.append(
                    (tracks.id(of: "diagnostics", order: 3), instant(record.name, ts: ts, detail: record.detail)))
            }
        }
        // A step still under way when the records end: up to the end.
        for began in openSteps.values.joined() {
            events.append(
                (
                    tracks.id(of: "lifecycle", order: 2),
                    complete(
                        began.name, category: "lifecycle", ts: microseconds(began.time), duration: end - began.time,
                        args: ["began": began.detail, "ended": "not yet"])
                ))
        }
        return encode(events, tracks: tracks, processName: processName)
    }

    /// The tracks, numbered in the order they first appear within their group.
    private struct Tracks {
        var ids: [String: Int] = [:]
        var names: [(name: String, order: Int, id: Int)] = []

        mutating func id(of name: String, order: Int) -> Int {
            if let id = ids[name] { return id }
            let id = names.count + 1
            ids[name] = id
            names.append((name, order, id))
            return id
        }
    }

    private static func microseconds(_ seconds: TimeInterval) -> Double {
        (seconds * 1e9).rounded() / 1e3
    }

    private static func complete(
        _ name: String, category: String, ts: Double, duration: TimeInterval, args: [String: Any]
    ) -> [String: Any] {
        ["name": name, "cat": category, "ph": "X", "ts": ts, "dur": microseconds(max(duration, 0)), "args": args]
    }

    private static func instant(_ name: String, ts: Double, detail: String) -> [String: Any] {
        ["name": name, "cat": "note", "ph": "i", "s": "t", "ts": ts, "args": ["detail": detail]]
    }

    /// One end of a flow arrow: `s` at the fire, `f` at the delivery, which it binds to (`bp: e`).
    private static func flow(_ phase: String, id: String, ts: Double) -> [String: Any] {
        var event: [String: Any] = ["name": "delivered", "cat": "flow", "ph": phase, "id": id, "ts": ts]
        if phase == "f" { event["bp"] = "e" }
        return event
    }

    private static func encode(
        _ events: [(track: Int, event: [String: Any])], tracks: Tracks, processName: String
    ) -> Data {
        var trace: [[String: Any]] = [
            ["name": "process_name", "ph": "M", "pid": 1, "tid": 0, "args": ["name": processName]]
        ]
        let ordered = tracks.names.sorted { ($0.order, $0.id) < ($1.order, $1.id) }
        for (index, track) in ordered.enumerated() {
            trace.append(["name": "thread_name", "ph": "M", "pid": 1, "tid": track.id, "args": ["name": track.name]])
            trace.append([
                "name": "thread_sort_index", "ph": "M", "pid": 1, "tid": track.id, "args": ["sort_index": index],
            ])
        }
        // Per track by time; a longer complete event first, so that one starting with it nests in it.
        let sorted = events.enumerated().sorted { left, right in
            let (a, b) = (left.element, right.element)
            if a.track != b.track { return a.track < b.track }
            let (at, bt) = (a.event["ts"] as? Double ?? 0, b.event["ts"] as? Double ?? 0)
            if at != bt { return at < bt }
            let (ad, bd) = (a.event["dur"] as? Double ?? -1, b.event["dur"] as? Double ?? -1)
            if ad != bd { return ad > bd }
            return left.offset < right.offset
        }
        for (_, element) in sorted {
            var event = element.event
            event["pid"] = 1
            event["tid"] = element.track
            trace.append(event)
        }
        let object: [String: Any] = ["traceEvents": trace, "displayTimeUnit": "ms"]
        return (try? JSONSerialization.data(withJSONObject: object, options: [.sortedKeys, .prettyPrinted])) ?? Data()
    }
}
