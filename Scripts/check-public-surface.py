#!/usr/bin/env python3
"""Fails when the library's public interface offers app code a way to fire events.

Usage: Scripts/check-public-surface.py [SYMBOL_GRAPH_DIR]

App code holds an SDK's CatalogBus (EventBus for the built-in catalog), its client's CatalogReader,
or, as SDKs handed it before 1.1, its CatalogClient (SDKClient); only the holder of the bus's
CatalogEmitter (EventEmitter) may fire. Scripts/check-app-side.sh checks, as app code, that the
reader cannot end readiness or steer the lifecycle either. This reads the public symbol graphs of
SDKEventBusCore, SDKEventBusConfig, SDKEventBusAppEvents and SDKEventBus (from `swift package
dump-symbol-graph --minimum-access-level public`) and checks that:

1. every public member whose name fires, emits, posts, sends or triggers belongs to
   CatalogEmitter, or to the app-event bus (AppEventBus), on which app code publishes by design
   and which is a distinct type from any catalog bus;
2. CatalogEmitter has no public initializer;
3. the only public declarations that hand out a CatalogEmitter are CatalogBus.makeBus() and
   the CatalogClient.make factories, which all create a new bus;
4. no public declaration takes a CatalogBus, a CatalogClient or a CatalogReader as a parameter
   unless it also takes that bus's CatalogEmitter (a store or component built from the bus app code
   holds could otherwise fire on it);
5. no public property has the type CatalogEmitter.
"""

import json
import re
import sys
from pathlib import Path

FIRE_WORDS = re.compile(r"(fire|emit|enqueue|post|send|publish|trigger|dispatch)", re.IGNORECASE)
EMITTER = "CatalogEmitter"
EMITTER_NAMES = {EMITTER, "EventEmitter"}
FIRING_OWNERS = {EMITTER, "AppEventBus"}
EMITTER_SOURCE_OWNERS = {"CatalogBus/makeBus", "CatalogClient/makeClient"}
RECEIVER_TYPES = {"CatalogBus", "EventBus", "CatalogClient", "SDKClient", "CatalogReader"}
# The library modules app code imports: the core, the app buses, and the built-in catalog on them.
MODULES = ["SDKEventBusCore", "SDKEventBusConfig", "SDKEventBusAppEvents", "SDKEventBus"]


def type_names(fragments):
    return {fragment["spelling"] for fragment in fragments if fragment.get("kind") == "typeIdentifier"}


def value_type_names(fragments):
    """The type names in `fragments` that name a value's type, leaving out those that only qualify a
    member type (`CatalogClient<Catalog>.Config` is a configuration, not a client)."""
    names = set()
    for index, fragment in enumerate(fragments):
        if fragment.get("kind") != "typeIdentifier":
            continue
        depth, rest = 0, ""
        for following in fragments[index + 1:]:
            if following.get("kind") != "text":
                if depth == 0:
                    break
                continue
            text = following["spelling"]
            for position, character in enumerate(text):
                if character == "<":
                    depth += 1
                elif character == ">":
                    depth -= 1
                elif depth == 0:
                    rest = text[position:]
                    break
            if rest or depth == 0:
                break
        if not rest.startswith("."):
            names.add(fragment["spelling"])
    return names


def main():
    directory = Path(sys.argv[1] if len(sys.argv) > 1 else ".build/symbolgraph")
    symbols = []
    for module in MODULES:
        candidates = list(directory.rglob(f"{module}.symbols.json"))
        if not candidates:
            sys.exit(f"no {module}.symbols.json under {directory}")
        symbols += json.loads(candidates[0].read_text(encoding="utf-8"))["symbols"]
    problems = []
    public = [symbol for symbol in symbols if symbol.get("accessLevel") in ("public", "open")]

    for symbol in public:
        path = "/".join(symbol["pathComponents"])
        kind = symbol["kind"]["identifier"]
        name = symbol["pathComponents"][-1]
        owner = symbol["pathComponents"][0]
        signature = symbol.get("functionSignature", {})

        if kind in ("swift.method", "swift.func", "swift.type.method") and FIRE_WORDS.match(name):
            if owner not in FIRING_OWNERS:
                problems.append(f"{path}: a public way to fire outside {', '.join(sorted(FIRING_OWNERS))}")
        if owner == EMITTER and kind == "swift.init":
            problems.append(f"{path}: {EMITTER} must not be constructible by app code")
        if EMITTER_NAMES & type_names(signature.get("returns", [])) and path.split("(")[0] not in EMITTER_SOURCE_OWNERS:
            problems.append(f"{path}: hands out a {EMITTER}; only {sorted(EMITTER_SOURCE_OWNERS)} may")
        parameters = [value_type_names(p.get("declarationFragments", [])) for p in signature.get("parameters", [])]
        takes_emitter = any(EMITTER_NAMES & names for names in parameters)
        for names in parameters:
            received = names & RECEIVER_TYPES
            if received and not takes_emitter:
                problems.append(f"{path}: takes {', '.join(sorted(received))}, which app code holds, without "
                                f"its {EMITTER}; something built from it could fire")
        if kind in ("swift.property", "swift.type.property") and EMITTER_NAMES & type_names(symbol["declarationFragments"]):
            problems.append(f"{path}: a public {EMITTER} property reaches the capability to fire")

    fire_members = sorted("/".join(s["pathComponents"]) for s in public if FIRE_WORDS.match(s["pathComponents"][-1]))
    if problems:
        print("The public interface lets app code fire events:")
        for problem in problems:
            print(f"  - {problem}")
        sys.exit(1)
    print(f"public surface: {len(public)} public symbols; firing only through {', '.join(fire_members)}; "
          f"emitters only from {', '.join(sorted(EMITTER_SOURCE_OWNERS))}")


if __name__ == "__main__":
    main()
