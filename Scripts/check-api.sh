#!/usr/bin/env bash
# Fails when a public declaration was removed, renamed or changed since the committed baseline
# API/SDKEventBus.json (from swift-api-digester). Additions pass.
#
# After a deliberate change, update the baseline in the same commit, so that the break is visible
# in review:
#
#     Scripts/check-api.sh --update
set -euo pipefail
cd "$(dirname "$0")/.."

baseline=API/SDKEventBus.json
swift build --target SDKEventBus >/dev/null
bin=$(swift build --show-bin-path)
triple=$(swift -print-target-info | python3 -c 'import json,sys; print(json.load(sys.stdin)["target"]["unversionedTriple"])')
arguments=(
    -module SDKEventBus
    -I "$bin/Modules"
    -Xcc "-fmodule-map-file=$bin/_SDKEventBusAtomics.build/module.modulemap"
    -target "$triple"
)
if [[ "$(uname)" == "Darwin" ]]; then arguments+=(-sdk "$(xcrun --show-sdk-path)"); fi

if [[ "${1:-}" == "--update" ]]; then
    swift-api-digester -dump-sdk "${arguments[@]}" -avoid-location -avoid-tool-args -o "$baseline"
    echo "updated $baseline"
    exit 0
fi

report=$(swift-api-digester -diagnose-sdk "${arguments[@]}" -baseline-path "$baseline" 2>&1)
# The report lists section headers (/* … */); every other line is a break.
breaks=$(echo "$report" | grep -v '^/\*' | grep -v '^[[:space:]]*$' || true)
if [[ -n "$breaks" ]]; then
    echo "The public API changed incompatibly since $baseline:"
    echo "$breaks" | sed 's/^/  - /'
    echo "If this is deliberate, run Scripts/check-api.sh --update and commit the new baseline with the change."
    exit 1
fi
echo "public API: no removed or changed declarations since $baseline"
