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
LOCKED = "lock + snapshot, inline"
FLOOR = "bare closure loop (floor)"
PEERS = [OURS, REFERENCE, LOCKED, "NotificationCenter", "AsyncStream per listener", FLOOR]
# The same bus, with a catalog declared in another module (issue #13) and with immediate delivery
# (issue #14): shown against the built-in catalog and against the inline lock in tables of their own.
EXTERNAL = "external catalog"
IMMEDIATE = "immediate"
# One bare main-actor hop per fire: the floor of asynchronous delivery, in the latency table only.
HOP = "one main-actor hop (async floor)"
LATENCY_PEERS = PEERS + [HOP]
ACTOR_REFERENCE = "Task per callback on the actor"
# The app bus (issue #15) beside the app-level buses it replaces.
APP_IMMEDIATE = "app bus, immediate"
APP_LOCKED = "app: lock + snapshot by type, inline"
APP_MAIN = "app bus, main actor"
APP_TASKS = "app: lock + Task per callback"
LISTENER_COUNTS = [1, 10, 100, 1000]
FIRES_PER_ROUND = 100  # must match firesPerRound in the benchmarks
PAIRS_PER_ROUND = 100  # must match pairsPerRound in the benchmarks
ACTOR_LISTENERS = 100  # must match actorListeners in the benchmarks
ONCE_COUNTS = [3000, 6000, 12000]  # must match onceListenerCounts in the benchmarks
# The app bus container (issue 35): scopes created and released, and lookups of existing scopes.
CONTAINER = "AppEventBusContainer"
CONTAINER_SCOPES = [5000, 10000, 20000, 40000]  # must match containerScopeCounts in the benchmarks
LOOKUPS_PER_ROUND = 1000  # must match lookupsPerRound in the benchmarks
SCOPE_CPU = "created and released, per scope (ns of CPU)"

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


def grouped(count):
    """A count as the scenario names spell it: 12,000."""
    return f"{count:,}"


def ratio(numerator, denominator):
    return numerator / denominator if numerator and denominator else None


def per_fire(results, kind, count, peer):
    """The median time per fire of a delivery scenario (`sustained` times 100 fires per iteration)."""
    value = p50(results, f"{kind}/{count} listeners/{peer}")
    if value is not None and kind in ("sustained", "actor, sustained"):
        value /= FIRES_PER_ROUND
    return value


def delivery_table(results, kind):
    peers = PEERS if kind == "sustained" else LATENCY_PEERS
    extra = "" if kind == "sustained" else " vs one hop |"
    head = "| listeners | " + " | ".join(peers) + " | vs reference | vs floor |" + extra
    rows = [head, "|" + " --- |" * (len(peers) + 3 + (0 if kind == "sustained" else 1))]
    for count in LISTENER_COUNTS:
        times = {peer: per_fire(results, kind, count, peer) for peer in peers}
        ours = times[OURS]
        cells = [fmt_time(times[peer]) for peer in peers]
        row = f"| {count} | " + " | ".join(cells)
        row += f" | {fmt_ratio(ratio(times[REFERENCE], ours))} faster | {fmt_ratio(ratio(ours, times[FLOOR]))} |"
        if kind != "sustained":
            row += f" {fmt_ratio(ratio(ours, times[HOP]))} |"
        rows.append(row)
    return "\n".join(rows)


def pair_table(results, ours, peer, ours_label, peer_label, counts):
    """Ours against one peer, sustained and latency, per listener count: ratio ours / peer."""
    head = (
        f"| listeners | sustained: {ours_label} | sustained: {peer_label} | ratio | "
        f"latency: {ours_label} | latency: {peer_label} | ratio |"
    )
    rows = [head, "|" + " --- |" * 7]
    for count in counts:
        cells = []
        for kind in ("sustained", "latency"):
            a, b = per_fire(results, kind, count, ours), per_fire(results, kind, count, peer)
            cells += [fmt_time(a), fmt_time(b), fmt_ratio(ratio(a, b))]
        rows.append(f"| {count} | " + " | ".join(cells) + " |")
    return "\n".join(rows)


def actor_table(results):
    rows = [f"| scenario | SDKEventBus | {ACTOR_REFERENCE} | speed-up |", "| --- | --- | --- | --- |"]
    for kind, label in (("actor, sustained", f"{FIRES_PER_ROUND} fires then wait"), ("actor, latency", "one fire")):
        ours = per_fire(results, kind, ACTOR_LISTENERS, OURS)
        reference = per_fire(results, kind, ACTOR_LISTENERS, ACTOR_REFERENCE)
        rows.append(
            f"| {label} | {fmt_time(ours)} | {fmt_time(reference)} | {fmt_ratio(ratio(reference, ours))} faster |"
        )
    return "\n".join(rows)


def once_table(results):
    rows = ["| listeners | `once` | per listener | plain `on` | `once` / `on` |", "| --- | --- | --- | --- | --- |"]
    for count in ONCE_COUNTS:
        once = p50(results, f"once/{grouped(count)} listeners/{OURS}")
        on = p50(results, f"once/{grouped(count)} listeners/plain on")
        per_listener = once / count if once is not None else None
        rows.append(
            f"| {grouped(count)} | {fmt_time(once)} | {fmt_time(per_listener)} | {fmt_time(on)} | {fmt_ratio(ratio(once, on))} |"
        )
    return "\n".join(rows)


def container_growth(results):
    """Each doubling of the scopes: how many times the CPU time of creating and releasing them grew."""
    per_scope = [p50(results, f"container/{grouped(count)} scopes created and released/{CONTAINER}", SCOPE_CPU)
                 for count in CONTAINER_SCOPES]
    return [
        (count, 2 * ratio(per_scope[index], per_scope[index - 1]) if ratio(per_scope[index], per_scope[index - 1]) else None)
        for index, count in enumerate(CONTAINER_SCOPES) if index > 0
    ]


def container_table(results):
    rows = ["| scenario | median | per scope or lookup | time / time at half the scopes |", "| --- | --- | --- | --- |"]
    growth = dict(container_growth(results))
    for count in CONTAINER_SCOPES:
        name = f"container/{grouped(count)} scopes created and released/{CONTAINER}"
        rows.append(
            f"| {grouped(count)} scopes created and released | {fmt_time(p50(results, name))} | "
            f"{fmt_time(p50(results, name, SCOPE_CPU))} of CPU | {fmt_ratio(growth.get(count))} |"
        )
    for variant in ("1 scopes", "1,000 scopes", "1,000 scopes, 2 threads"):
        name = f"container/bus(for:) of an existing scope, {variant}/{CONTAINER}"
        value = p50(results, name)
        rows.append(
            f"| `bus(for:)` of an existing scope, {variant.replace('1 scopes', '1 scope')} | {fmt_time(value)} per "
            f"{grouped(LOOKUPS_PER_ROUND)} | {fmt_time(value / LOOKUPS_PER_ROUND if value is not None else None)} | |"
        )
    return "\n".join(rows)


def targets(results):
    def sustained(count, peer):
        return per_fire(results, "sustained", count, peer)

    rows = ["| target | measured | |", "| --- | --- | --- |"]
    ours100, ref100, floor100 = (sustained(100, peer) for peer in (OURS, REFERENCE, FLOOR))
    if ours100 and ref100 and floor100:
        rows.append(f"| 100 listeners: ≥ 50× the reference | {ref100 / ours100:.0f}× | {verdict(ref100 / ours100 >= 50)} |")
        rows.append(f"| 100 listeners: ≤ 2× the bare closure loop | {ours100 / floor100:.2f}× | {verdict(ours100 / floor100 <= 2)} |")
    ours10, ref10 = sustained(10, OURS), sustained(10, REFERENCE)
    if ours10 and ref10:
        rows.append(f"| 10 listeners: ≥ 15× the reference | {ref10 / ours10:.0f}× | {verdict(ref10 / ours10 >= 15)} |")
    ours1, ref1 = sustained(1, OURS), sustained(1, REFERENCE)
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
    rows += series_targets(results)
    return "\n".join(rows)


def series_row(label, ratios, ok):
    """A target row over several listener counts: every ratio, met when `ok` holds for each."""
    present = [(count, value) for count, value in ratios if value is not None]
    if not present:
        return None
    measured = " / ".join(f"{fmt_ratio(value)} ({grouped(count)})" for count, value in present)
    complete = len(present) == len(ratios)
    return f"| {label} | {measured} | {verdict(complete and all(ok(value) for _, value in present))} |"


def series_targets(results):
    """The targets of issues #12, #13 and #14."""
    rows = []
    for kind in ("sustained", "latency"):
        rows.append(series_row(
            f"external catalog, {kind}: ≤ 1.2× the built-in one",
            [(count, ratio(per_fire(results, kind, count, EXTERNAL), per_fire(results, kind, count, OURS)))
             for count in LISTENER_COUNTS],
            lambda value: value <= 1.2,
        ))
    rows.append(series_row(
        "immediate delivery, sustained: ≤ 1.3× lock + snapshot, inline",
        [(count, ratio(per_fire(results, "sustained", count, IMMEDIATE), per_fire(results, "sustained", count, LOCKED)))
         for count in (1, 10, 100)],
        lambda value: value <= 1.3,
    ))
    rows.append(series_row(
        "app bus, immediate, sustained: ≤ 1.3× lock + snapshot by type, inline",
        [(count, ratio(per_fire(results, "sustained", count, APP_IMMEDIATE), per_fire(results, "sustained", count, APP_LOCKED)))
         for count in (1, 10, 100)],
        lambda value: value <= 1.3,
    ))
    app_main = per_fire(results, "sustained", 100, APP_MAIN)
    app_tasks = per_fire(results, "sustained", 100, APP_TASKS)
    if app_main and app_tasks:
        rows.append(
            f"| app bus, main actor, 100 listeners: ≥ 20× a Task per callback | "
            f"{app_tasks / app_main:.0f}× ({fmt_time(app_main)} vs {fmt_time(app_tasks)} per fire) | "
            f"{verdict(app_tasks / app_main >= 20)} |"
        )
    ours = per_fire(results, "actor, sustained", ACTOR_LISTENERS, OURS)
    reference = per_fire(results, "actor, sustained", ACTOR_LISTENERS, ACTOR_REFERENCE)
    if ours and reference:
        rows.append(
            f"| delivery to an actor, {ACTOR_LISTENERS} listeners: ≥ 20× a Task per callback | "
            f"{reference / ours:.0f}× ({fmt_time(ours)} vs {fmt_time(reference)} per fire) | {verdict(reference / ours >= 20)} |"
        )
    largest = grouped(ONCE_COUNTS[-1])
    once, on = p50(results, f"once/{largest} listeners/{OURS}"), p50(results, f"once/{largest} listeners/plain on")
    if once and on:
        rows.append(
            f"| one fire to {largest} `once` listeners: ≤ 40× as many `on` listeners | "
            f"{once / on:.1f}× ({fmt_time(once)} vs {fmt_time(on)}) | {verdict(once / on <= 40)} |"
        )
    onces = [p50(results, f"once/{grouped(count)} listeners/{OURS}") for count in ONCE_COUNTS]
    rows.append(series_row(
        "`once` grows linearly: each doubling of the listeners ≤ 2.5× the time",
        [(count, ratio(onces[index], onces[index - 1])) for index, count in enumerate(ONCE_COUNTS) if index > 0],
        lambda value: value <= 2.5,
    ))
    rows.append(series_row(
        "app bus scopes created and released grow linearly: each doubling of the scopes ≤ 2.5× the CPU time",
        container_growth(results),
        lambda value: value <= 2.5,
    ))
    idle = p50(results, f"subscribe+unsubscribe/10,000 live/{OURS}")
    firing = p50(results, f"subscribe+unsubscribe/10,000 live, firing/{OURS}")
    if idle and firing:
        rows.append(
            f"| subscribe + unsubscribe at 10,000 listeners while firing: ≤ 2× idle | "
            f"{firing / idle:.2f}× ({fmt_time(firing / PAIRS_PER_ROUND)} vs {fmt_time(idle / PAIRS_PER_ROUND)} per pair) | "
            f"{verdict(firing / idle <= 2)} |"
        )
    return [row for row in rows if row]


def other_table(results):
    """One row per scenario and variant (`subscribe+unsubscribe — 10,000 live, firing` is its own)."""
    rows = ["| scenario | SDKEventBus | others |", "| --- | --- | --- |"]
    names = sorted(results)
    divisors = {"caller side": FIRES_PER_ROUND, "subscribe+unsubscribe": PAIRS_PER_ROUND, "ready": 10_000}

    def show(name):
        kind = name.split("/")[0]
        metrics = results[name]
        if kind == "memory":
            after = metrics.get("heap in use after (KB)")
            if after is not None:  # the burst scenario: heap in use after vs before, mallinfo2
                before = metrics.get("heap in use before (KB)") or 0
                return f"heap in use {after / 1024:.2f} MB after, {before / 1024:.2f} MB before"
            value = metrics.get("Memory leaked") or metrics.get("Malloc / free Δ (bytes)")
            return f"{value / 100_000:.0f} B/subscription" if value else "—"
        value = metrics.get("Time (wall clock)")
        return fmt_time(value / divisors[kind] if value is not None else None)

    for kind in ("caller side", "subscribe+unsubscribe", "memory", "ready"):
        variants = sorted({name.rsplit("/", 1)[0] for name in names if name.split("/")[0] == kind})
        for variant in variants:
            group = [name for name in names if name.rsplit("/", 1)[0] == variant]
            ours = [name for name in group if name.endswith("/" + OURS) or name.endswith("/ConfigStore")]
            others = [name for name in group if name not in ours]
            rows.append(
                f"| {variant.replace('/', ' — ')} | {', '.join(show(name) for name in ours)} | "
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
        "### A catalog declared in another module (median per fire)\n\n"
        + pair_table(results, EXTERNAL, OURS, "external", "built-in", LISTENER_COUNTS),
        "### Immediate delivery (median per fire)\n\n"
        + pair_table(results, IMMEDIATE, LOCKED, "immediate", "lock + snapshot", LISTENER_COUNTS),
        f"### Delivery to an actor ({ACTOR_LISTENERS} listeners, median per fire)\n\n" + actor_table(results),
        "### The app bus beside the buses apps write (median per fire)\n\n"
        + pair_table(results, APP_IMMEDIATE, APP_LOCKED, "app bus, immediate", "lock + snapshot by type", LISTENER_COUNTS)
        + "\n\n"
        + pair_table(results, APP_MAIN, APP_TASKS, "app bus, main actor", "lock + Task per callback", LISTENER_COUNTS),
        "### One fire to `once` listeners (median)\n\n" + once_table(results),
        "### App bus scopes (median)\n\n" + container_table(results),
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
