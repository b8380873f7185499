#!/usr/bin/env python3
"""Checks a bus's trace (the Trace Event Format a timeline exports) and renders it as an SVG timeline.

Usage:
    Scripts/render-trace.py validate TRACE.json            the format's rules (see RULES below)
    Scripts/render-trace.py normalize TRACE.json OUT.json  a trace as the guide keeps it (below)
    Scripts/render-trace.py render TRACE.json OUT.svg      the picture
    Scripts/render-trace.py check-docs FRESH.json          what CI's docs step runs (below)
    Scripts/render-trace.py --self-test

The guide "Seeing what the bus did" (Docs/SeeingWhatTheBusDid.md) shows the demo's own trace
(`swift run SDKEventBusDemo --trace demo-trace.json`). A run's times and thread numbers differ from
the next run's, so the guide keeps the trace of one run, normalized (FIXTURE): times rebased to 0 and
rounded to the microsecond, the firing threads' tracks merged into one `fires` track (a thread's
number says nothing to a reader), fire and flow ids renumbered in order, the thread numbers dropped
from the arguments. Its picture (PICTURE) is rendered from that file, so it is the same on every
machine. `check-docs` keeps both honest: the fresh trace of the demo (run by CI) must follow the
format's rules and have the fixture's shape (on each track, the same events in the same order; the
diagnostics track may have more, as a loaded machine may find another listener slow), name the
same subscription sites (`file:line`, which the guide quotes: those must be among them), and the
picture rendered from the fixture must be the committed one. When the demo changes, regenerate:

    swift run SDKEventBusDemo --trace .build/demo-trace.json
    Scripts/render-trace.py normalize .build/demo-trace.json Docs/seeing-what-the-bus-did.trace.json
    Scripts/render-trace.py render Docs/seeing-what-the-bus-did.trace.json Docs/seeing-what-the-bus-did.svg

RULES: a JSON object with a `traceEvents` array; every event has `name`, `ph`, `pid`, `tid`, and all
but metadata a numeric `ts`; complete events (`X`) have `dur` >= 0 and nest on their track; `B`/`E`
balance per track; timestamps never go back on a track, in file order; each flow start (`s`) has an
end (`f`, bound to its enclosing slice with `bp: e`, inside a slice of its track) not before it; each
track has a `thread_name`, the process a `process_name`. Tests/SDKEventBusTests checks the same rules
in Swift (TraceEventFormatRules) on the traces the library exports and on FIXTURE. Standard library
only.
"""

import json
import math
import re
import sys
from pathlib import Path

ROOT = Path(__file__).resolve().parent.parent
FIXTURE = ROOT / "Docs" / "seeing-what-the-bus-did.trace.json"
PICTURE = ROOT / "Docs" / "seeing-what-the-bus-did.svg"
GUIDE = ROOT / "Docs" / "SeeingWhatTheBusDid.md"
PHASES = {"X", "B", "E", "i", "s", "f", "M"}
HITCH_US = 16_000  # a slice this long is drawn as a hitch: one frame at 60 Hz


def violations(trace):
    """What is wrong with `trace` (a parsed JSON value) as a trace; empty when nothing is."""
    if not isinstance(trace, dict) or not isinstance(trace.get("traceEvents"), list):
        return ["not a JSON object with a traceEvents array"]
    problems, last, open_slices, begun, starts, ends = [], {}, {}, {}, {}, {}
    named, tracks, process_named = set(), set(), False
    for index, event in enumerate(trace["traceEvents"]):
        if not all(key in event for key in ("name", "ph", "pid", "tid")):
            problems.append(f"event {index} lacks name, ph, pid or tid")
            continue
        track, phase, name = (event["pid"], event["tid"]), event["ph"], event["name"]
        if phase == "M":
            if name == "thread_name" and isinstance(event.get("args", {}).get("name"), str):
                named.add(track)
            process_named = process_named or name == "process_name"
            continue
        if phase not in PHASES:
            problems.append(f"event {index} has phase {phase}")
            continue
        ts = event.get("ts")
        if not isinstance(ts, (int, float)):
            problems.append(f"event {index} ({name}) has no numeric ts")
            continue
        tracks.add(track)
        if ts < last.get(track, -math.inf):
            problems.append(f"event {index} ({name}) goes back in time on {track}")
        last[track] = ts
        slices = [s for s in open_slices.get(track, []) if not (s[1] <= ts and not (s[0] == ts == s[1]))]
        open_slices[track] = slices
        if phase == "X":
            duration = event.get("dur")
            if not isinstance(duration, (int, float)) or duration < 0:
                problems.append(f"complete event {index} ({name}) has no dur of at least 0")
                continue
            if slices and ts + duration > slices[-1][1]:
                problems.append(f"complete event {index} ({name}) overlaps the one it starts in on {track}")
            slices.append((ts, ts + duration))
        elif phase == "B":
            begun[track] = begun.get(track, 0) + 1
        elif phase == "E":
            begun[track] = begun.get(track, 0) - 1
            if begun[track] < 0:
                problems.append(f"end event {index} ({name}) has no begin on {track}")
        elif phase in ("s", "f"):
            if "id" not in event:
                problems.append(f"flow event {index} has no id")
                continue
            (starts if phase == "s" else ends)[str(event["id"])] = ts
            if phase == "f":
                if event.get("bp") != "e":
                    problems.append(f"flow end {index} does not bind to its slice")
                if not any(start <= ts <= end for start, end in slices):
                    problems.append(f"flow end {index} lies in no slice of {track}")
    problems += [f"{count} begin event(s) unbalanced on {track}" for track, count in begun.items() if count]
    for flow, start in starts.items():
        if flow not in ends:
            problems.append(f"flow {flow} has no end")
        elif ends[flow] < start:
            problems.append(f"flow {flow} ends before it starts")
    problems += [f"flow {flow} has no start" for flow in ends if flow not in starts]
    problems += [f"track {track} has no thread_name" for track in sorted(tracks - named)]
    if not process_named:
        problems.append("no process_name")
    return problems


def track_names(trace):
    return {
        (e["pid"], e["tid"]): e["args"]["name"]
        for e in trace["traceEvents"]
        if e.get("ph") == "M" and e.get("name") == "thread_name"
    }


def normalize(trace):
    """The trace as the guide keeps it: see the module's documentation."""
    names = track_names(trace)
    events = [e for e in trace["traceEvents"] if e.get("ph") != "M"]
    origin = min((e["ts"] for e in events), default=0)
    order = ["fires", "main actor", "immediate", "lifecycle", "diagnostics"]
    def canonical(track):
        name = names.get(track, "?")
        return "fires" if name.startswith("fire · ") else name
    kept = sorted({canonical((e["pid"], e["tid"])) for e in events},
                  key=lambda n: (order.index(n) if n in order else len(order), n))
    tids = {name: index + 1 for index, name in enumerate(kept)}
    fires, flows, out = {}, {}, []
    for event in sorted(events, key=lambda e: (e["ts"], 0 if e["ph"] == "X" else 1, -e.get("dur", 0))):
        event = json.loads(json.dumps(event))
        event["tid"], event["pid"] = tids[canonical((event["pid"], event["tid"]))], 1
        event["ts"] = round(event["ts"] - origin, 3)
        if "dur" in event:
            event["dur"] = round(event["dur"], 3)
        args = event.get("args", {})
        args.pop("thread", None)
        if "fire" in args:
            args["fire"] = fires.setdefault(args["fire"], len(fires) + 1)
        if "waited_us" in args:
            args["waited_us"] = round(args["waited_us"], 3)
        if event["ph"] in ("s", "f"):
            event["id"] = flows.setdefault(str(event["id"]), len(flows) + 1)
        out.append(event)
    out.sort(key=lambda e: (e["tid"], e["ts"], 0 if e["ph"] == "X" else 1, -e.get("dur", 0)))
    metadata = [{"name": "process_name", "ph": "M", "pid": 1, "tid": 0, "args": {"name": "SDKEventBusDemo"}}]
    for name in kept:
        metadata.append({"name": "thread_name", "ph": "M", "pid": 1, "tid": tids[name], "args": {"name": name}})
        metadata.append({"name": "thread_sort_index", "ph": "M", "pid": 1, "tid": tids[name],
                         "args": {"sort_index": tids[name]}})
    return {"displayTimeUnit": "ms", "traceEvents": metadata + out}


def shape(trace):
    """Per track, the events in order, without times: what a run of the demo always does."""
    names, result = track_names(trace), {}
    for event in trace["traceEvents"]:
        if event.get("ph") in ("X", "i", "B", "E"):
            result.setdefault(names.get((event["pid"], event["tid"]), "?"), []).append(f'{event["ph"]} {event["name"]}')
    return result


def render(trace):
    """The trace as an SVG timeline: a row per track, time compressed where nothing happens."""
    names = track_names(trace)
    events = [e for e in trace["traceEvents"] if e.get("ph") in ("X", "i", "s", "f")]
    rows = sorted({(e["pid"], e["tid"]) for e in events}, key=lambda t: t[1])
    row_of = {track: index for index, track in enumerate(rows)}
    label_width, width, row_height, top, right = 110, 1000, 52, 34, 90
    # Time axis: each moment something starts or ends gets a column; the gap to the next grows
    # with the log of the time between them, so a 40 ms hitch is wide and a second of idle is not.
    moments = sorted({e["ts"] for e in events} | {e["ts"] + e.get("dur", 0) for e in events})
    raw, position = {}, 0.0
    for index, moment in enumerate(moments):
        if index:
            gap = moment - moments[index - 1]
            position += 10 + 8 * math.log10(1 + gap / 10) + (12 if gap > 100_000 else 0)
        raw[moment] = position
    scale = (width - label_width - right) / max(position, 1)
    def x(ts):
        return label_width + 10 + raw[ts] * scale
    height = top + len(rows) * row_height + 64
    out = [
        f'<svg xmlns="http://www.w3.org/2000/svg" width="{width}" height="{height}" '
        f'viewBox="0 0 {width} {height}" font-family="Helvetica, Arial, sans-serif" font-size="11">',
        f'<rect width="{width}" height="{height}" fill="#ffffff"/>',
        f'<text x="10" y="20" font-size="13" font-weight="bold">{escape(trace_title(trace))}</text>',
        '<defs><marker id="arrow" viewBox="0 0 6 6" refX="5" refY="3" markerWidth="6" markerHeight="6" '
        'orient="auto"><path d="M0,0 L6,3 L0,6 z" fill="#8a8a8a"/></marker></defs>',
    ]
    for index, track in enumerate(rows):
        y = top + index * row_height
        out.append(f'<rect x="0" y="{y}" width="{width}" height="{row_height}" '
                   f'fill="{"#f6f6f6" if index % 2 else "#ffffff"}"/>')
        out.append(f'<text x="10" y="{y + row_height / 2 + 4:.1f}">{escape(names.get(track, "?"))}</text>')
    # Idle stretches longer than 100 ms, compressed: marked on the axis.
    for earlier, later in zip(moments, moments[1:]):
        if later - earlier > 100_000:
            middle = (x(earlier) + x(later)) / 2
            out.append(f'<text x="{middle:.1f}" y="{top - 6}" text-anchor="middle" fill="#8a8a8a" '
                       f'font-size="9">{(later - earlier) / 1e6:.2f} s</text>')
    colors = {"fire": "#4e79a7", "delivery": "#59a14f", "replay": "#9c755f", "lifecycle": "#f28e2b"}
    label_end = {}  # per row, where its last label above the slices ends: the next goes below if it would touch
    for event in [e for e in events if e["ph"] == "X"]:
        row = row_of[(event["pid"], event["tid"])]
        start, end = x(event["ts"]), x(event["ts"] + event["dur"])
        hitch = event["dur"] >= HITCH_US and event.get("cat") != "lifecycle"
        color = "#e15759" if hitch else colors.get(event.get("cat"), "#bab0ac")
        y = top + row * row_height + 12
        out.append(f'<rect x="{start:.1f}" y="{y}" width="{max(end - start, 3):.1f}" height="{row_height - 24}" '
                   f'fill="{color}" rx="1.5"><title>{escape(event["name"])}: {event["dur"]:.1f} µs</title></rect>')
        label = event["name"] + (f' {event["dur"] / 1000:.0f} ms' if hitch else "")
        above = label_end.get(row, -1) < start
        label_y = y - 2 if above else y + row_height - 24 + 9
        if above:
            label_end[row] = start + 5 * len(label)
        out.append(f'<text x="{start:.1f}" y="{label_y}" font-size="9" fill="#333333">{escape(label)}</text>')
    for event in [e for e in events if e["ph"] == "i"]:
        row = row_of[(event["pid"], event["tid"])]
        cx, cy = x(event["ts"]), top + row * row_height + row_height / 2
        color = "#e15759" if "slow" in event["name"] else "#555555"
        out.append(f'<path d="M{cx:.1f},{cy - 5:.1f} l5,5 l-5,5 l-5,-5 z" fill="{color}"/>')
        out.append(f'<text x="{cx + 2:.1f}" y="{cy + 16:.1f}" font-size="9" fill="{color}" '
                   f'transform="rotate(20 {cx + 2:.1f} {cy + 16:.1f})">{escape(event["name"])}</text>')
    starts = {str(e["id"]): e for e in events if e["ph"] == "s"}
    for end in [e for e in events if e["ph"] == "f"]:
        start = starts.get(str(end["id"]))
        if start is None:
            continue
        x1, y1 = x(start["ts"]), top + row_of[(start["pid"], start["tid"])] * row_height + row_height / 2
        x2, y2 = x(end["ts"]), top + row_of[(end["pid"], end["tid"])] * row_height + row_height / 2
        out.append(f'<path d="M{x1:.1f},{y1:.1f} C{x1 + 12:.1f},{y1:.1f} {x2 - 12:.1f},{y2:.1f} {x2:.1f},{y2:.1f}" '
                   'fill="none" stroke="#8a8a8a" stroke-width="1" marker-end="url(#arrow)"/>')
    legend_y = top + len(rows) * row_height + 22
    items = [("fire", colors["fire"]), ("delivery", colors["delivery"]), ("replay", colors["replay"]),
             ("lifecycle step", colors["lifecycle"]), ("hitch: a listener over 16 ms", "#e15759")]
    legend_x = 10
    for label, color in items:
        out.append(f'<rect x="{legend_x}" y="{legend_y - 9}" width="10" height="10" fill="{color}"/>')
        out.append(f'<text x="{legend_x + 14}" y="{legend_y}">{escape(label)}</text>')
        legend_x += 24 + 7 * len(label)
    out.append(f'<text x="10" y="{legend_y + 20}" fill="#8a8a8a" font-size="9">Arrows lead from each fire to its '
               'deliveries. Time is compressed where nothing happens; the gaps say how long.</text>')
    out.append("</svg>")
    return "\n".join(out) + "\n"


def trace_title(trace):
    for event in trace["traceEvents"]:
        if event.get("ph") == "M" and event.get("name") == "process_name":
            return f'{event["args"]["name"]}: what the bus did'
    return "what the bus did"


def escape(text):
    return str(text).replace("&", "&amp;").replace("<", "&lt;").replace(">", "&gt;")


def load(path):
    return json.loads(Path(path).read_text(encoding="utf-8"))


def write_json(trace, path):
    Path(path).write_text(json.dumps(trace, indent=1, sort_keys=True, ensure_ascii=False) + "\n", encoding="utf-8")


def check_docs(fresh_path):
    fresh, fixture, failed = load(fresh_path), load(FIXTURE), False
    for name, trace in (("the demo's trace", fresh), (str(FIXTURE.relative_to(ROOT)), fixture)):
        problems = violations(trace)
        if problems:
            print(f"{name} breaks the Trace Event Format's rules:\n  " + "\n  ".join(problems))
            failed = True
    got, expected = shape(normalize(fresh)), shape(fixture)
    for track in sorted(set(got) | set(expected)):
        have, want = got.get(track, []), expected.get(track, [])
        if track == "diagnostics" and all(item in have for item in want):
            continue
        if have != want:
            print(f"the demo's trace differs from {FIXTURE.name} on the track {track}:\n  demo:    {have}\n  fixture: {want}")
            failed = True
    # The sites the guide quotes are the sites the demo's trace names: a line added to the demo
    # moved them once, and only a reader noticed.
    sites = lambda trace: sorted({event.get("args", {}).get("subscription") for event in trace["traceEvents"]}
                                 - {None, ""})
    if sites(normalize(fresh)) != sites(fixture):
        print(f"the demo's subscriptions are not {FIXTURE.name}'s:\n  demo:    {sites(normalize(fresh))}\n"
              f"  fixture: {sites(fixture)}")
        failed = True
    quoted = set(re.findall(r"SDKEventBusDemo/MockTimeline\.swift:\d+", GUIDE.read_text(encoding="utf-8")))
    if not quoted <= set(sites(fixture)):
        print(f"{GUIDE.relative_to(ROOT)} quotes {sorted(quoted - set(sites(fixture)))}, which the demo's trace does not name")
        failed = True
    picture = render(fixture)
    if PICTURE.read_text(encoding="utf-8") != picture:
        print(f"{PICTURE.relative_to(ROOT)} is not what the fixture renders")
        failed = True
    if failed:
        print("regenerate both as the documentation of Scripts/render-trace.py says")
        sys.exit(1)
    print(f"the demo's trace follows the format and has the guide's shape ({sum(map(len, got.values()))} events); "
          f"{PICTURE.name} is what {FIXTURE.name} renders")


def self_test():
    good = {"traceEvents": [
        {"name": "process_name", "ph": "M", "pid": 1, "tid": 0, "args": {"name": "p"}},
        {"name": "thread_name", "ph": "M", "pid": 1, "tid": 1, "args": {"name": "fire · thread 7"}},
        {"name": "thread_name", "ph": "M", "pid": 1, "tid": 2, "args": {"name": "main actor"}},
        {"name": "e", "cat": "fire", "ph": "X", "pid": 1, "tid": 1, "ts": 10.0, "dur": 1.0, "args": {"fire": 99}},
        {"name": "delivered", "ph": "s", "pid": 1, "tid": 1, "ts": 10.0, "id": "99.0"},
        {"name": "e", "cat": "delivery", "ph": "X", "pid": 1, "tid": 2, "ts": 20.0, "dur": 20000.0, "args": {}},
        {"name": "delivered", "ph": "f", "bp": "e", "pid": 1, "tid": 2, "ts": 20.0, "id": "99.0"},
    ]}
    assert violations(good) == [], violations(good)
    bad = json.loads(json.dumps(good))
    bad["traceEvents"][5]["dur"] = -1
    bad["traceEvents"].append({"name": "x", "ph": "X", "pid": 1, "tid": 3, "ts": 1.0, "dur": 1})
    problems = violations(bad)
    assert any("no dur" in p for p in problems) and any("no thread_name" in p for p in problems), problems
    normal = normalize(good)
    assert violations(normal) == [], violations(normal)
    assert shape(normal) == {"fires": ["X e"], "main actor": ["X e"]}, shape(normal)
    picture = render(normal)
    assert picture == render(normalize(good)) and "20 ms" in picture and "#e15759" in picture
    print("self-test passed")


def main(arguments):
    if arguments == ["--self-test"]:
        return self_test()
    if len(arguments) == 2 and arguments[0] == "validate":
        problems = violations(load(arguments[1]))
        print("\n".join(problems) if problems else f"{arguments[1]} follows the Trace Event Format's rules")
        sys.exit(1 if problems else 0)
    if len(arguments) == 3 and arguments[0] == "normalize":
        return write_json(normalize(load(arguments[1])), arguments[2])
    if len(arguments) == 3 and arguments[0] == "render":
        return Path(arguments[2]).write_text(render(load(arguments[1])), encoding="utf-8")
    if len(arguments) == 2 and arguments[0] == "check-docs":
        return check_docs(arguments[1])
    sys.exit(__doc__)


if __name__ == "__main__":
    main(sys.argv[1:])
