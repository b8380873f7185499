#!/usr/bin/env bash
# Measures fire → delivery across the package's module boundary in a binary SDK's build (library
# evolution, compiled against the .swiftinterface files alone) against a plain release build of
# the same sources, in one run, alternating, and prints the ratio of the medians.
#
# The issue's bar: the library-evolution build costs at most 1.2× the source build. Not timed in
# CI (CI machines are shared and noisy); run it on a quiet machine.
#
# Usage: Scripts/library-evolution-benchmark.sh [rounds]    (default 7; .build/library-evolution,
#        .build/release-source)
set -euo pipefail
cd "$(dirname "$0")/.."
rounds=${1:-7}

modules=(SDKEventBusCore SDKEventBusWire SDKEventBusConfig SDKEventBusAppEvents SDKEventBus)
triple=$(swift -print-target-info | python3 -c 'import json,sys; print(json.load(sys.stdin)["target"]["triple"])')
sdk=()
if [[ "$(uname)" == "Darwin" ]]; then sdk=(-sdk "$(xcrun --show-sdk-path)"); fi
work=.build/library-evolution-benchmark
rm -rf "$work" && mkdir -p "$work/interfaces" "$work/module-cache"

objects_of() {
    local bin=$1 list=()
    for target in _SDKEventBusAtomics "${modules[@]}"; do
        while IFS= read -r object; do list+=("$object"); done < <(find "$bin/$target.build" -name '*.o' | sort)
    done
    printf '%s\n' "${list[@]}"
}

echo "Building the library with library evolution, and without, in release"
evolution=(-c release --scratch-path .build/library-evolution -Xswiftc -enable-library-evolution -Xswiftc -emit-module-interface)
plain=(-c release --scratch-path .build/release-source)
swift build "${evolution[@]}" --target SDKEventBus >/dev/null 2>&1 || swift build "${evolution[@]}" --target SDKEventBus
swift build "${plain[@]}" --target SDKEventBus >/dev/null
evolution_bin=$(swift build "${evolution[@]}" --show-bin-path)
plain_bin=$(swift build "${plain[@]}" --show-bin-path)
for module in "${modules[@]}"; do cp "$evolution_bin/$module.build/$module.swiftinterface" "$work/interfaces/"; done

echo "Building the benchmark against each"
mapfile -t evolution_objects < <(objects_of "$evolution_bin")
mapfile -t plain_objects < <(objects_of "$plain_bin")
swiftc -O -swift-version 6 Scripts/library-evolution-benchmark/main.swift -I "$work/interfaces" \
    -module-cache-path "$work/module-cache" -target "$triple" "${sdk[@]}" "${evolution_objects[@]}" \
    -o "$work/evolution"
swiftc -O -swift-version 6 Scripts/library-evolution-benchmark/main.swift -I "$plain_bin/Modules" \
    -Xcc "-fmodule-map-file=$plain_bin/_SDKEventBusAtomics.build/module.modulemap" \
    -module-cache-path "$work/module-cache" -target "$triple" "${sdk[@]}" "${plain_objects[@]}" \
    -o "$work/plain"

echo "Running $rounds rounds, alternating"
for ((round = 1; round <= rounds; round++)); do
    "$work/evolution" | sed 's/^/evolution /' >> "$work/results"
    "$work/plain" | sed 's/^/plain /' >> "$work/results"
done
python3 - "$work/results" <<'PY'
import statistics, sys
runs = {}
for line in open(sys.argv[1]):
    build, scenario, value = line.split()
    runs.setdefault(scenario, {}).setdefault(build, []).append(float(value))
print(f"{'scenario':<15} {'plain ns/event':>15} {'evolution ns/event':>19} {'ratio':>6}")
for scenario, builds in runs.items():
    plain, evolution = statistics.median(builds["plain"]), statistics.median(builds["evolution"])
    print(f"{scenario:<15} {plain:>15.1f} {evolution:>19.1f} {evolution / plain:>6.2f}")
PY
