import Foundation

/// The rules of the Trace Event Format that a trace Perfetto's UI and chrome://tracing open must
/// follow, checked: what a test asserts of an exported trace.
///
/// - the file is a JSON object with `traceEvents`, an array of objects;
/// - every event has `name`, `ph`, `pid` and `tid`, and every event but metadata (`M`) a numeric
///   `ts`; `ph` is one the exporter writes (`X`, `B`, `E`, `i`, `s`, `f`, `M`);
/// - a complete event (`X`) has a `dur` of at least 0; on one track, complete events nest (none
///   overlaps another partly), and `B`/`E` pairs balance;
/// - on one track, the timestamps never go back, in file order;
/// - each flow start (`s`) has a flow end (`f`) with its `id`, at a time not before it; a flow end
///   binds to the enclosing slice (`bp: e`) and lies within a complete event of its track;
/// - metadata names each track (`thread_name`) and the process (`process_name`).
enum TraceEventFormatRules {
    /// What is wrong with `data` as a trace; empty when nothing is.
    static func violations(of data: Data) -> [String] {
        guard let root = try? JSONSerialization.jsonObject(with: data) as? [String: Any],
            let events = root["traceEvents"] as? [[String: Any]]
        else { return ["not a JSON object with a traceEvents array"] }
        var problems: [String] = []
        var lastTime: [String: Double] = [:]
        var open: [String: [(start: Double, end: Double)]] = [:]
        var begun: [String: Int] = [:]
        var starts: [String: Double] = [:]
        var ends: [String: Double] = [:]
        var named: Set<String> = []
        var tracks: Set<String> = []
        var hasProcessName = false
        for (index, event) in events.enumerated() {
            guard let name = event["name"] as? String, let phase = event["ph"] as? String,
                let pid = event["pid"] as? Int, let tid = event["tid"] as? Int
            else {
                problems.append("event \(index) lacks name, ph, pid or tid: \(event)")
                continue
            }
            let track = "\(pid)/\(tid)"
            if phase == "M" {
                if name == "thread_name", (event["args"] as? [String: Any])?["name"] is String { named.insert(track) }
                if name == "process_name" { hasProcessName = true }
                continue
            }
            guard ["X", "B", "E", "i", "s", "f"].contains(phase) else {
                problems.append("event \(index) has phase \(phase)")
                continue
            }
            guard let ts = event["ts"] as? Double ?? (event["ts"] as? Int).map(Double.init) else {
                problems.append("event \(index) (\(name)) has no numeric ts")
                continue
            }
            tracks.insert(track)
            if let last = lastTime[track], ts < last {
                problems.append("event \(index) (\(name)) goes back in time on \(track)")
            }
            lastTime[track] = ts
            // Complete events that ended before this one starts are closed.
            open[track, default: []].removeAll { $0.end <= ts && !($0.start == ts && $0.end == ts) }
            switch phase {
            case "X":
                guard let duration = event["dur"] as? Double ?? (event["dur"] as? Int).map(Double.init), duration >= 0
                else {
                    problems.append("complete event \(index) (\(name)) has no dur of at least 0")
                    continue
                }
                if let enclosing = open[track]?.last, ts + duration > enclosing.end {
                    problems.append("complete event \(index) (\(name)) overlaps the one it starts in on \(track)")
                }
                open[track, default: []].append((ts, ts + duration))
            case "B": begun[track, default: 0] += 1
            case "E":
                begun[track, default: 0] -= 1
                if begun[track, default: 0] < 0 {
                    problems.append("end event \(index) (\(name)) has no begin on \(track)")
                }
            case "s":
                guard let id = event["id"].map({ "\($0)" }) else {
                    problems.append("flow start \(index) has no id")
                    continue
                }
                starts[id] = ts
            case "f":
                guard let id = event["id"].map({ "\($0)" }) else {
                    problems.append("flow end \(index) has no id")
                    continue
                }
                ends[id] = ts
                if event["bp"] as? String != "e" { problems.append("flow end \(index) does not bind to its slice") }
                if !(open[track] ?? []).contains(where: { $0.start <= ts && ts <= $0.end }) {
                    problems.append("flow end \(index) lies in no slice of \(track)")
                }
            default: break
            }
        }
        for (track, count) in begun where count != 0 {
            problems.append("\(count) begin event(s) unbalanced on \(track)")
        }
        for (id, start) in starts {
            guard let end = ends[id] else {
                problems.append("flow \(id) has no end")
                continue
            }
            if end < start { problems.append("flow \(id) ends before it starts") }
        }
        for id in Set(ends.keys).subtracting(starts.keys) { problems.append("flow \(id) has no start") }
        for track in tracks.subtracting(named) { problems.append("track \(track) has no thread_name") }
        if !hasProcessName { problems.append("no process_name") }
        return problems
    }
}
