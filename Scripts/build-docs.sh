#!/usr/bin/env bash
# Builds the DocC documentation with the toolchain's own docc (no plugin in the library's manifest)
# and fails on any documentation warning, on DocC articles out of date with Docs/, and on a public
# type the landing page does not curate.
#
# Output: .build/docs/SDKEventBus.doccarchive (open it, or serve it with `docc preview`).
set -euo pipefail
cd "$(dirname "$0")/.."

python3 Scripts/sync-docc.py --check

symbols=.build/docs-symbol-graphs
rm -rf "$symbols" && mkdir -p "$symbols"
output=$(swift package dump-symbol-graph --minimum-access-level public 2>&1) || { echo "$output"; exit 1; }
dumped=$(echo "$output" | sed -n 's/^Files written to //p' | tail -1)
# Only the library's own graphs: the C shim's symbols are not part of the documented API.
cp "$dumped"/SDKEventBus.symbols.json "$symbols"/
cp "$dumped"/SDKEventBus@*.symbols.json "$symbols"/ 2>/dev/null || true

python3 - "$symbols/SDKEventBus.symbols.json" Sources/SDKEventBus/SDKEventBus.docc/SDKEventBus.md <<'PY'
import json, re, sys
graph = json.load(open(sys.argv[1]))
landing = open(sys.argv[2]).read()
top = {s["pathComponents"][0] for s in graph["symbols"] if len(s["pathComponents"]) == 1}
curated = set(re.findall(r"^- ``(\w+)``", landing, re.M))
missing = sorted(top - curated)
if missing:
    sys.exit("the landing page's Topics do not curate: " + ", ".join(missing))
print(f"landing page curates all {len(top)} public top-level symbols")
PY

mkdir -p .build/docs
docc convert Sources/SDKEventBus/SDKEventBus.docc \
    --additional-symbol-graph-dir "$symbols" \
    --fallback-display-name SDKEventBus \
    --fallback-bundle-identifier org.sdkeventbus.SDKEventBus \
    --output-path .build/docs/SDKEventBus.doccarchive \
    --warnings-as-errors
