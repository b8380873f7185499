#!/usr/bin/env python3
"""Fails when the library's public interface offers app code a way to fire events.

Usage: Scripts/check-public-surface.py [SYMBOL_GRAPH_DIR]

App code holds an EventBus (or an SDKClient); only the holder of an EventEmitter may fire. This
reads the public symbol graph of SDKEventBus (from `swift package dump-symbol-graph
--minimum-access-level public`) and checks that:

1. every public member whose name fires, emits, posts, sends or triggers belongs to EventEmitter;
2. EventEmitter has no public initializer;
3. the only public declarations that hand out an EventEmitter are EventBus.makeBus() and
   SDKClient.make(configuration:fetchService:), which both create a new bus;
4. no public declaration takes an EventBus or an SDKClient as a parameter (a store or component
   built from the bus app code holds could fire on it);
5. no public property has the type EventEmitter.
"""

import json
import re
import sys
from pathlib import Path

FIRE_WORDS = re.compile(r"(fire|emit|enqueue|post|send|publish|trigger|dispatch)", re.IGNORECASE)
EMITTER_SOURCES = {"EventBus/makeBus()", "SDKClient/make(configuration:fetchService:)"}
RECEIVER_TYPES = {"EventBus", "SDKClient"}


def type_names(fragments):
    return {fragment["spelling"] for fragment in fragments if fragment.get("kind") == "typeIdentifier"}


def main():
    directory = Path(sys.argv[1] if len(sys.argv) > 1 else ".build/symbolgraph")
    candidates = list(directory.rglob("SDKEventBus.symbols.json"))
    if not candidates:
        sys.exit(f"no SDKEventBus.symbols.json under {directory}")
    graph = json.loads(candidates[0].read_text(encoding="utf-8"))
    problems = []
    public = [symbol for symbol in graph["symbols"] if symbol.get("accessLevel") in ("public", "open")]

    for symbol in public:
        path = "/".join(symbol["pathComponents"])
        kind = symbol["kind"]["identifier"]
        name = symbol["pathComponents"][-1]
        owner = symbol["pathComponents"][0]
        signature = symbol.get("functionSignature", {})

        if kind in ("swift.method", "swift.func", "swift.type.method") and FIRE_WORDS.match(name):
            if owner != "EventEmitter":
                problems.append(f"{path}: a public way to fire outside EventEmitter")
        if owner == "EventEmitter" and kind == "swift.init":
            problems.append(f"{path}: EventEmitter must not be constructible by app code")
        if "EventEmitter" in type_names(signature.get("returns", [])) and path not in EMITTER_SOURCES:
            problems.append(f"{path}: hands out an EventEmitter; only {sorted(EMITTER_SOURCES)} may")
        for parameter in signature.get("parameters", []):
            received = type_names(parameter.get("declarationFragments", [])) & RECEIVER_TYPES
            if received:
                problems.append(f"{path}: takes a{'n' if 'EventBus' in received else ''} {', '.join(sorted(received))}, "
                                "which app code holds; something built from it could fire")
        if kind in ("swift.property", "swift.type.property") and "EventEmitter" in type_names(symbol["declarationFragments"]):
            problems.append(f"{path}: a public EventEmitter property reaches the capability to fire")

    fire_members = sorted("/".join(s["pathComponents"]) for s in public if FIRE_WORDS.match(s["pathComponents"][-1]))
    if problems:
        print("The public interface lets app code fire events:")
        for problem in problems:
            print(f"  - {problem}")
        sys.exit(1)
    print(f"public surface: {len(public)} public symbols; firing only through {', '.join(fire_members)}; "
          f"emitters only from {', '.join(sorted(EMITTER_SOURCES))}")


if __name__ == "__main__":
    main()
