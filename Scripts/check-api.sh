#!/usr/bin/env bash
# Fails when a public declaration of a library module was removed, renamed or changed since its
# committed baseline API/<Module>.json (from swift-api-digester). Additions pass.
#
# After a deliberate change, update the baselines in the same commit, so that the break is visible
# in review:
#
#     Scripts/check-api.sh --update
#
# A module is checked with the modules it re-exports in REEXPORTED below, as one API: what its
# import gives. SDKEventBusTesting declared EventRecorder, CatalogConformance and WaitTimeoutError
# until 1.1.0 moved them to SDKEventBusCoreTesting, which it re-exports (`@_exported public import`):
# `import SDKEventBusTesting` still gives each under the same name, so its baseline (recorded at
# 1.0.0, and at each update since) is compared with both modules, and a change to a moved
# declaration fails as any other change does.
set -euo pipefail
cd "$(dirname "$0")/.."

modules=(SDKEventBusCore SDKEventBusWire SDKEventBusConfig SDKEventBusAppEvents SDKEventBusTimeline SDKEventBus SDKEventBusCoreTesting SDKEventBusTesting)
for module in "${modules[@]}"; do swift build --target "$module" >/dev/null; done
bin=$(swift build --show-bin-path)
triple=$(swift -print-target-info | python3 -c 'import json,sys; print(json.load(sys.stdin)["target"]["unversionedTriple"])')
common=(
    -I "$bin/Modules"
    -Xcc "-fmodule-map-file=$bin/_SDKEventBusAtomics.build/module.modulemap"
    -target "$triple"
)
if [[ "$(uname)" == "Darwin" ]]; then common+=(-sdk "$(xcrun --show-sdk-path)"); fi
declare -A REEXPORTED=([SDKEventBusTesting]=SDKEventBusCoreTesting)
lists=$(mktemp -d)
trap 'rm -rf "$lists"' EXIT

status=0
for module in "${modules[@]}"; do
    baseline="API/$module.json"
    # The module, and the modules it re-exports, one name a line.
    printf '%s\n' "$module" ${REEXPORTED[$module]:-} >"$lists/$module"
    selection=(-module-list-file "$lists/$module")
    if [[ "${1:-}" == "--update" ]]; then
        swift-api-digester -dump-sdk "${selection[@]}" "${common[@]}" -avoid-location -avoid-tool-args -o "$baseline"
        echo "updated $baseline"
        continue
    fi
    report=$(swift-api-digester -diagnose-sdk "${selection[@]}" "${common[@]}" -baseline-path "$baseline" 2>&1)
    # The report lists section headers (/* … */); every other line is a break.
    breaks=$(echo "$report" | grep -v '^/\*' | grep -v '^[[:space:]]*$' || true)
    if [[ -n "$breaks" ]]; then
        echo "The public API of $module changed incompatibly since $baseline:"
        echo "$breaks" | sed 's/^/  - /'
        status=1
    else
        echo "$module: no removed or changed declarations since $baseline"
    fi
done
if [[ $status -ne 0 ]]; then
    echo "If this is deliberate, run Scripts/check-api.sh --update and commit the new baselines with the change."
fi
exit $status
