#!/usr/bin/env python3
"""Turns package-benchmark's markdown output into the results of Docs/Performance.md.

Usage: Scripts/benchmark-report.py RESULTS.md

Writes the tables between the `<!-- results:begin -->` and `<!-- results:end -->` markers of
Docs/Performance.md, and the chart Docs/performance-chart.svg. Standard library only.
"""

import math
import re
import sys
from pathlib import Path

ROOT = Path(__file__).resolve().parent.parent
PERFORMANCE = ROOT / "Docs" / "Performance.md"
CHART = ROOT / "Docs" / "performance-chart.svg"

OURS = "SDKEventBus"
REFERENCE = "reference actor + Task per callback"
FLOOR = "bare closure loop (floor)"
PEERS = [OURS, REFERENCE, "lock + snapshot, inline", "NotificationCenter", "AsyncStream per listener", FLOOR]
LISTENER_COUNTS = [1, 10, 100, 1000]
FIRES_PER_ROUND = 100  # must match firesPerRound in the benchmarks
PAIRS_PER_ROUND = 100  # must match pairsPerRound in the benchmarks

UNITS = {"(ns)": 1, "(μs)": 1e3, "(us)": 1e3, "(ms)": 1e6, "(s)": 1e9}
SCALES = {"(K)": 1e3, "(M)": 1e6, "(G)": 1e9}


def parse(path):
    """Returns {benchmark name: {metric: p50}}, times in ns, counts and bytes unscaled."""
    results, name = {}, None
    for line in Path(path).read_text(encoding="utf-8").splitlines():
        heading = re.match(r"^#+\s+(.+/.+)$", line.strip())
        if heading:
            name = heading.group(1).strip()
            results[name] = {}
            continue
        if not (name and line.startswith("|")) or "---" in line:
            continue
        cells = [cell.strip() for cell in line.strip().strip("|").split("|")]
        if len(cells) < 4 or cells[0] == "Metric":
            continue
        label, p50 = cells[0], cells[3]
        try:
            value = float(p50)
        except ValueError:
            continue
        for token, factor in {**UNITS, **SCALES}.items():
            if token in label:
                value *= factor
        metric = re.sub(r"\s*\((ns|μs|us|ms|s|K|M|G)\)", "", label).replace("*", "").strip()
        results[name][metric] = value
    return results


def p50(results, name, metric="Time (wall clock)"):
    return results.get(name, {}).get(metric)


def fmt_time(ns):
    if ns is None:
        return "—"
    if ns >= 1e6:
        return f"{ns / 1e6:.2f} ms"
    if ns >= 1e3:
        return f"{ns / 1e3:.2f} µs"
    return f"{ns:.0f} ns"


def fmt_ratio(value):
    if value is None:
        return "—"
    return f"{value:.0f}×" if value >= 10 else f"{value:.2f}×"


def verdict(ok):
    return "met" if ok else "**missed**"


def delivery_table(results, kind):
    per = FIRES_PER_ROUND if kind == "sustained" else 1
    head = "| listeners | " + " | ".join(PEERS) + " | vs reference | vs floor |"
    rows = [head, "|" + " --- |" * (len(PEERS) + 3)]
    for count in LISTENER_COUNTS:
        times = {peer: p50(results, f"{kind}/{count} listeners/{peer}") for peer in PEERS}
        times = {peer: (value / per if value is not None else None) for peer, value in times.items()}
        ours, reference, floor = times[OURS], times[REFERENCE], times[FLOOR]
        cells = [fmt_time(times[peer]) for peer in PEERS]
        speedup = reference / ours if ours and reference else None
        over_floor = ours / floor if ours and floor else None
        rows.append(f"| {count} | " + " | ".join(cells) + f" | {fmt_ratio(speedup)} faster | {fmt_ratio(over_floor)} |")
    return "\n".join(rows)


def targets(results):
    def per_fire(kind, count, peer):
        value = p50(results, f"{kind}/{count} listeners/{peer}")
        return value / FIRES_PER_ROUND if value is not None and kind == "sustained" else value

    rows = ["| target | measured | |", "| --- | --- | --- |"]
    ours100, ref100, floor100 = (per_fire("sustained", 100, peer) for peer in (OURS, REFERENCE, FLOOR))
    if ours100 and ref100 and floor100:
        rows.append(f"| 100 listeners: ≥ 50× the reference | {ref100 / ours100:.0f}× | {verdict(ref100 / ours100 >= 50)} |")
        rows.append(f"| 100 listeners: ≤ 2× the bare closure loop | {ours100 / floor100:.2f}× | {verdict(ours100 / floor100 <= 2)} |")
    ours10, ref10 = per_fire("sustained", 10, OURS), per_fire("sustained", 10, REFERENCE)
    if ours10 and ref10:
        rows.append(f"| 10 listeners: ≥ 15× the reference | {ref10 / ours10:.0f}× | {verdict(ref10 / ours10 >= 15)} |")
    ours1, ref1 = per_fire("sustained", 1, OURS), per_fire("sustained", 1, REFERENCE)
    if ours1 and ref1:
        rows.append(f"| 1 listener, bursts: ≥ 10× the reference | {ref1 / ours1:.0f}× | {verdict(ref1 / ours1 >= 10)} |")
    caller = p50(results, f"caller side/100 listeners/{OURS}")
    if caller is not None:
        per_listener = caller / FIRES_PER_ROUND / 100
        rows.append(f"| caller side of a fire, 100 listeners: ≤ 20 ns per listener | {per_listener:.1f} ns per listener ({fmt_time(caller / FIRES_PER_ROUND)} per fire) | {verdict(per_listener <= 20)} |")
    mallocs = p50(results, f"sustained/100 listeners/{OURS}", "Malloc (total)")
    if mallocs is not None:
        per_callback = mallocs / (FIRES_PER_ROUND * 100)
        rows.append(f"| zero allocations per callback delivered | {per_callback:.4f} per callback ({mallocs / FIRES_PER_ROUND:.2f} per fire) | {verdict(per_callback < 0.01)} |")
    pair = p50(results, f"subscribe+unsubscribe/10,000 live/{OURS}")
    if pair is not None:
        pair /= PAIRS_PER_ROUND
        rows.append(f"| subscribe + unsubscribe at 10,000 listeners: ≤ 0.5 µs per pair | {fmt_time(pair)} | {verdict(pair <= 500)} |")
    memory = p50(results, f"memory/100,000 live subscriptions/{OURS}", "Memory leaked")
    if memory is None:
        memory = p50(results, f"memory/100,000 live subscriptions/{OURS}", "Malloc / free Δ (bytes)")
    if memory is not None:
        rows.append(f"| ≤ 128 bytes per live subscription | {memory / 100_000:.0f} bytes | {verdict(memory / 100_000 <= 128)} |")
    store = p50(results, "ready/resume 10,000 waiters/ConfigStore")
    bare = p50(results, "ready/resume 10,000 waiters/bare continuations")
    if store and bare:
        rows.append(f"| `ready()` resume per waiter ≤ 2× a bare continuation | {fmt_time(store / 10_000)} vs {fmt_time(bare / 10_000)}: {store / bare:.2f}× | {verdict(store / bare <= 2)} |")
    return "\n".join(rows)


def other_table(results):
    rows = ["| scenario | SDKEventBus | others |", "| --- | --- | --- |"]
    names = sorted(results)
    for prefix in ("caller side/", "subscribe+unsubscribe/", "memory/", "ready/"):
        group = [name for name in names if name.startswith(prefix)]
        if not group:
            continue
        def show(name):
            metrics = results[name]
            if prefix == "memory/":
                value = metrics.get("Memory leaked") or metrics.get("Malloc / free Δ (bytes)")
                return f"{value / 100_000:.0f} B/subscription" if value else "—"
            value = metrics.get("Time (wall clock)")
            if prefix == "caller side/" and value is not None:
                value /= FIRES_PER_ROUND
            if prefix == "subscribe+unsubscribe/" and value is not None:
                value /= PAIRS_PER_ROUND
            if prefix == "ready/" and value is not None:
                value /= 10_000
            return fmt_time(value)
        ours = [name for name in group if name.endswith("/" + OURS) or name.endswith("/ConfigStore")]
        others = [name for name in group if name not in ours]
        scenario = group[0].split("/")[0] + " — " + group[0].split("/")[1]
        rows.append(
            f"| {scenario} | {', '.join(show(name) for name in ours)} | "
            + "; ".join(f"{name.split('/')[-1]}: {show(name)}" for name in others)
            + " |"
        )
    return "\n".join(rows)


def chart(results):
    """A log-scale bar chart of the sustained cost per fire, by listener count and design."""
    colors = ["#d62728", "#7f7f7f", "#1f77b4", "#9467bd", "#ff7f0e", "#2ca02c"]
    order = [OURS, REFERENCE, "lock + snapshot, inline", "NotificationCenter", "AsyncStream per listener", FLOOR]
    values = {
        (count, peer): (p50(results, f"sustained/{count} listeners/{peer}") or 0) / FIRES_PER_ROUND
        for count in LISTENER_COUNTS for peer in order
    }
    positive = [value for value in values.values() if value > 0]
    if not positive:
        return None
    low = 10 ** math.floor(math.log10(min(positive)))
    high = 10 ** math.ceil(math.log10(max(positive)))
    width, height, left, top, bottom = 900, 420, 70, 40, 70
    plot_w, plot_h = width - left - 180, height - top - bottom
    group_w = plot_w / len(LISTENER_COUNTS)
    bar_w = group_w / (len(order) + 1)

    def y(value):
        return top + plot_h * (1 - (math.log10(value) - math.log10(low)) / (math.log10(high) - math.log10(low)))

    out = [
        f'<svg xmlns="http://www.w3.org/2000/svg" width="{width}" height="{height}" font-family="sans-serif" font-size="12">',
        f'<rect width="{width}" height="{height}" fill="white"/>',
        f'<text x="{left}" y="22" font-size="15" font-weight="bold">Sustained delivery: time per fire until every callback ran (log scale, lower is better)</text>',
    ]
    decade = low
    while decade <= high:
        out.append(f'<line x1="{left}" x2="{left + plot_w}" y1="{y(decade):.1f}" y2="{y(decade):.1f}" stroke="#ddd"/>')
        out.append(f'<text x="{left - 6}" y="{y(decade) + 4:.1f}" text-anchor="end">{fmt_time(decade)}</text>')
        decade *= 10
    for group, count in enumerate(LISTENER_COUNTS):
        x0 = left + group * group_w + bar_w / 2
        for index, peer in enumerate(order):
            value = values[(count, peer)]
            if value <= 0:
                continue
            x = x0 + index * bar_w
            out.append(
                f'<rect x="{x:.1f}" y="{y(value):.1f}" width="{bar_w - 2:.1f}" height="{top + plot_h - y(value):.1f}" '
                f'fill="{colors[index]}"><title>{peer}, {count} listeners: {fmt_time(value)}</title></rect>'
            )
        label = f"{count} listener" + ("" if count == 1 else "s")
        out.append(f'<text x="{left + group * group_w + group_w / 2:.1f}" y="{top + plot_h + 20}" text-anchor="middle">{label}</text>')
    for index, peer in enumerate(order):
        ly = top + 10 + index * 20
        out.append(f'<rect x="{left + plot_w + 20}" y="{ly}" width="12" height="12" fill="{colors[index]}"/>')
        out.append(f'<text x="{left + plot_w + 38}" y="{ly + 10}">{peer}</text>')
    out.append(f'<text x="{left}" y="{height - 20}" fill="#555">{FIRES_PER_ROUND} fires from the main actor, then until every callback ran; median per fire. Generated by Scripts/benchmark-report.py.</text>')
    out.append("</svg>")
    return "\n".join(out) + "\n"


def main():
    if len(sys.argv) != 2:
        sys.exit(__doc__)
    results = parse(sys.argv[1])
    if not results:
        sys.exit(f"no benchmark results in {sys.argv[1]}")
    section = "\n\n".join([
        "### Targets\n\n" + targets(results),
        f"### Sustained delivery (median per fire, {FIRES_PER_ROUND} fires then wait)\n\n" + delivery_table(results, "sustained"),
        "### Latency of a single fire (median)\n\n" + delivery_table(results, "latency"),
        "### Other scenarios (median)\n\n" + other_table(results),
        "![Sustained delivery per fire, by design and listener count](performance-chart.svg)",
    ])
    text = PERFORMANCE.read_text(encoding="utf-8")
    begin, end = "<!-- results:begin -->", "<!-- results:end -->"
    if begin not in text or end not in text:
        sys.exit(f"{PERFORMANCE} lacks the {begin} / {end} markers")
    before, rest = text.split(begin, 1)
    _, after = rest.split(end, 1)
    PERFORMANCE.write_text(before + begin + "\n\n" + section + "\n\n" + end + after, encoding="utf-8")
    svg = chart(results)
    if svg:
        CHART.write_text(svg, encoding="utf-8")
    print(f"updated {PERFORMANCE.relative_to(ROOT)} and {CHART.relative_to(ROOT)}")


if __name__ == "__main__":
    main()
