#!/usr/bin/env python3
"""Prints what an SDK takes from each library product: public API entries and machine code.

Usage: Scripts/budgets.py [--check] [--markdown]

- API entries are counted from the swift-api-digester dump of each library module: every public
  type, function, initializer, property, subscript, enum case, typealias and associated type, at
  any depth (accessors, conformances, `package` declarations and test SPI, `@_spi(Testing)`, are not
  entries: an SDK takes neither). The budget and
  the ceilings apply to that count. Beside it, "declared" leaves out the members the compiler makes
  for a conformance (synthesized `==` and `hash(into:)`, `init(rawValue:)`, an actor's executor,
  inferred typealiases), which no one writes, documents or can remove without the conformance.
- Machine code is the size of the executable sections (`.text`, and the `.text.*` sections a
  function may get) of the module's objects in a release build optimized for size (`-Osize`), on
  this machine's platform. Beside it the table shows what `size` calls text, which adds read-only
  data, unwind tables and Swift's type metadata: what the objects load, not only their code.

With --check it fails when a module grows past its ceiling (CEILINGS below: what it measured when
the ceiling was last lowered), and when a product is over its budget (BUDGETS: the events product, and the configuration product on top of it);
`.ci/run` runs it so. Lower a ceiling whenever a change shrinks a
module: the ceilings only go down.
With --markdown it prints the table for Docs/Performance.md.
"""

import json
import os
import re
import subprocess
import sys
import tempfile
from datetime import date
from pathlib import Path

ROOT = Path(__file__).resolve().parent.parent
SCRATCH = ROOT / ".build" / "budgets"

# Module → (maximum API entries, maximum KB of machine code). Modules without a budget are reported.
BUDGETS = {
    "SDKEventBusCore": (120, 120),
    # 200 → 220 entries (1.1.0): 1.0.0 shipped at exactly 200, and a minor release only adds. The
    # app's reader (`client.reader`, `CatalogReader` and its 7 members, issue 37) and
    # `LifecycleConfiguration.notificationCenter` (issue 34) take 10; nothing can go before 2.0.
    "SDKEventBusConfig": (220, 200),
}

# Module → (API entries, KB of machine code) it may not grow past: a ratchet, lowered as it shrinks.
CEILINGS = {
    # 78 → 86 entries, 113 → 120 KB (119.3): a slow main-actor listener named by its `on`'s file and
    # line (the subscribing verbs' new overloads, the threshold, the diagnostic) and the engine's
    # timeline hook (1.2.0); SDKEventBusTimeline holds the rest. At the budget: what the core adds
    # next must first find its room in it.
    "SDKEventBusCore": (86, 120),
    "SDKEventBusWire": (34, 71),  # 67 → 71: the wire form's integer, nesting and path fixes, 65.9 → 70.2 KB (1.1.0)
    # 134 → 139 KB: an HTTP fetch's transfer is delegate-driven, so that `maximumBodySize` bounds its
    # memory (HTTPTransferSession, and the transfer's body handling); still far within the budget.
    # 200 → 210 entries, 139 → 155 KB (1.1.0): the app's reader and the notification-center setting;
    # the lifecycle's machine deciding every step (requests, demands during the cache load, timers,
    # abandoned fetches) and its waits raced without task groups (FirstResult).
    # 155 → 157 KB (156.0): the lifecycle's steps recorded on its bus's timeline, and the spacing
    # between fetches counted from a configuration's arrival (1.2.0).
    "SDKEventBusConfig": (210, 157),
    # 16 → 27 KB: the container's hashed table, its registry and the scope a bus serves (1.1.0),
    # where 867f149 copied a Dictionary, the standard library's code, for every change. 27 → 28 KB
    # (27.1): an app bus names its events and reports through its bus, so that a timeline sees them
    # (1.2.0).
    "SDKEventBusAppEvents": (36, 28),
    "SDKEventBus": (288, 130),  # 287 → 288: HTTPConfigFetchService is a ConfigFetchService (1.0.0)
    "SDKEventBusCoreTesting": (32, 57),
    # 83 → 53 entries, 115 → 47 KB: the recorder, the waits and the conformance check moved to
    # SDKEventBusCoreTesting (1.1.0).
    "SDKEventBusTesting": (53, 47),
}

ENTRY_KINDS = {
    "TypeDecl",
    "Function",
    "Constructor",
    "Var",
    "EnumElement",
    "TypeAlias",
    "Subscript",
    "AssociatedType",
}


def run(*arguments, **options):
    return subprocess.run(arguments, check=True, text=True, capture_output=True, cwd=ROOT, **options).stdout


def library_modules():
    """The library modules, and each one's library modules beneath it (what taking it takes too)."""
    description = json.loads(run("swift", "package", "describe", "--type", "json"))
    modules = []
    for product in description["products"]:
        if "library" in product["type"]:
            modules += [target for target in product["targets"] if target not in modules]
    direct = {target["name"]: target.get("target_dependencies") or [] for target in description["targets"]}

    def beneath(module):
        found = []
        for dependency in direct.get(module, []):
            if dependency in modules and dependency not in found:
                found += [dependency] + [d for d in beneath(dependency) if d not in found]
        return found

    return modules, {module: beneath(module) for module in modules}


def count_entries(node, declared_only=False):
    """Public entries under `node`; `package` declarations (marked `isInternal`) and test SPI (with
    `spi_group_names`) are not API.

    With `declared_only`, leaves out what the compiler makes (marked `implicit`): synthesized `==`,
    `hash(into:)` and `hashValue`, a raw-value enum's `init(rawValue:)`, an actor's
    `unownedExecutor`, typealiases inferred for associated types.
    """
    count = 0
    for child in node.get("children", []):
        if (
            child.get("kind") in ENTRY_KINDS
            and child.get("declKind") != "Accessor"
            and not child.get("isInternal")
            and not child.get("spi_group_names")
        ):
            if not (declared_only and child.get("implicit")):
                count += 1
            count += count_entries(child, declared_only)
    return count


def api_entries(module, bin_path, triple):
    with tempfile.NamedTemporaryFile(suffix=".json") as dump:
        arguments = [
            "swift-api-digester", "-dump-sdk", "-module", module,
            "-I", str(bin_path / "Modules"), "-target", triple,
            "-avoid-location", "-avoid-tool-args", "-o", dump.name,
        ]
        for modulemap in bin_path.glob("*.build/module.modulemap"):
            arguments += ["-Xcc", f"-fmodule-map-file={modulemap}"]
        run(*arguments)
        root = json.load(open(dump.name))["ABIRoot"]
        return count_entries(root), count_entries(root, declared_only=True)


def code_size(module, release_path):
    """(machine code, size's text column) of the module's objects, in bytes."""
    # Only the objects of the module's current sources: an incremental build keeps the objects of
    # files since removed or renamed, which would otherwise be counted.
    sources = {path.name for path in (ROOT / "Sources" / module).rglob("*.swift")}
    objects = sorted(
        path for path in (release_path / f"{module}.build").glob("*.o") if path.name.removesuffix(".o") in sources
    )
    if not objects:
        sys.exit(f"no objects for {module} in {release_path}")
    berkeley = int(run("size", "-t", *map(str, objects)).strip().splitlines()[-1].split()[0])
    machine = 0
    for line in run("size", "-A", *map(str, objects)).splitlines():
        fields = line.split()
        if len(fields) == 3 and (fields[0] == ".text" or fields[0].startswith(".text.")):
            machine += int(fields[1])
    return machine, berkeley


def main():
    check = "--check" in sys.argv
    markdown = "--markdown" in sys.argv
    triple = json.loads(run("swift", "-print-target-info"))["target"]["unversionedTriple"]

    run("swift", "build")
    bin_path = Path(run("swift", "build", "--show-bin-path").strip())
    release = ["swift", "build", "-c", "release", "-Xswiftc", "-Osize", "--scratch-path", str(SCRATCH)]
    modules, beneath = library_modules()
    for module in modules:
        run(*release, "--target", module)
    release_path = Path(run(*release, "--show-bin-path").strip())

    rows = []
    failures = []
    gaps = []
    measured = {}
    for module in modules:
        entries, declared = api_entries(module, bin_path, triple)
        machine, berkeley = (size / 1024 for size in code_size(module, release_path))
        measured[module] = (entries, machine)
        budget = BUDGETS.get(module)
        rows.append((module, entries, declared, machine, berkeley, budget))
        ceiling = CEILINGS.get(module)
        if ceiling and (entries > ceiling[0] or machine > ceiling[1]):
            failures.append(
                f"{module}: {entries} API entries (ceiling {ceiling[0]}), {machine:.0f} KB of machine code "
                f"(ceiling {ceiling[1]} KB)")
        if budget and (entries > budget[0] or machine > budget[1]):
            gaps.append(
                f"{module}: {entries - budget[0]:+} API entries, {machine - budget[1]:+.0f} KB of machine code")

    if markdown:
        print(f"Measured {date.today().isoformat()} on {triple}, Swift release build with `-Osize`.\n")
        print("| module | public API entries | of them declared in source | machine code | `size` text | budget |")
        print("| --- | ---: | ---: | ---: | ---: | --- |")
        for module, entries, declared, machine, berkeley, budget in rows:
            limit = f"≤ {budget[0]} entries, ≤ {budget[1]} KB of machine code" if budget else "—"
            print(f"| `{module}` | {entries} | {declared} | {machine:.0f} KB | {berkeley:.0f} KB | {limit} |")
    else:
        print(f"{'module':<22} {'API entries':>11} {'declared':>9} {'machine code':>13} {'size text':>10}  budget")
        for module, entries, declared, machine, berkeley, budget in rows:
            limit = f"≤ {budget[0]} entries, ≤ {budget[1]} KB of machine code" if budget else "-"
            print(f"{module:<22} {entries:>11} {declared:>9} {machine:>10.0f} KB {berkeley:>7.0f} KB  {limit}")
    # What an SDK takes in all with each product: the module and every library module beneath it.
    takes = []
    for module, *_ in rows:
        if beneath[module]:
            entries = sum(measured[m][0] for m in [module] + beneath[module])
            machine = sum(measured[m][1] for m in [module] + beneath[module])
            takes.append(f"{module} (with {', '.join(beneath[module])}): {entries} API entries, {machine:.0f} KB")
    print(("\n" if markdown else "") + "Taking a product takes the modules beneath it:" + ("\n\n- " if markdown else "\n  ")
          + ("\n- " if markdown else "\n  ").join(takes))
    if gaps and not markdown:
        print("over budget (Scripts/budgets.py, BUDGETS):\n  " + "\n  ".join(gaps))
    if check and (failures or gaps):
        failures += gaps
        sys.exit("past a ceiling or the budget (Scripts/budgets.py, CEILINGS, BUDGETS):\n  " + "\n  ".join(failures))


if __name__ == "__main__":
    main()
