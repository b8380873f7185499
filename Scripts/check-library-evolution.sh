#!/usr/bin/env bash
# Builds every library product as a binary SDK ships it (an XCFramework is built with
# BUILD_LIBRARY_FOR_DISTRIBUTION, which is library evolution plus module interfaces), then proves the
# result usable from the interfaces alone:
#
# 1. a release build of the library products with -enable-library-evolution -emit-module-interface;
# 2. each emitted .swiftinterface type-checks on its own (swiftc -frontend
#    -typecheck-module-from-interface), its dependencies found as interfaces too; so does each
#    .private.swiftinterface, which adds the test SPI (`@_spi(Testing)`);
# 3. a small client (Scripts/library-evolution-client) compiles against the interfaces alone, links
#    against the release objects, and runs: events on the built-in and on its own catalog, a
#    replay, the lifecycle on a test clock, a timed ready() and a shutdown.
#
# Usage: Scripts/check-library-evolution.sh    (about a minute on 2 cores; .build/library-evolution)
set -euo pipefail
cd "$(dirname "$0")/.."

modules=(SDKEventBusCore SDKEventBusWire SDKEventBusConfig SDKEventBusAppEvents SDKEventBusTimeline SDKEventBus SDKEventBusCoreTesting SDKEventBusTesting)
scratch=.build/library-evolution
work="$scratch/check"
flags=(-c release --scratch-path "$scratch" -Xswiftc -enable-library-evolution -Xswiftc -emit-module-interface)

echo "Building the library products with library evolution (release)"
# Foundation on Linux is not built with library evolution: the compiler says so for every module
# that imports it, which is expected here and not on Apple platforms.
# The testing library depends on every shipped product but the timeline, which is built beside it.
for target in SDKEventBusTesting SDKEventBusTimeline; do
    swift build "${flags[@]}" --target "$target" 2>&1 \
        | grep -v "was not compiled with library evolution support" | grep -E "error|warning: " || true
    swift build "${flags[@]}" --target "$target" >/dev/null 2>&1 || {
        swift build "${flags[@]}" --target "$target"
        exit 1
    }
done
bin=$(swift build "${flags[@]}" --show-bin-path)
triple=$(swift -print-target-info | python3 -c 'import json,sys; print(json.load(sys.stdin)["target"]["triple"])')
sdk=()
if [[ "$(uname)" == "Darwin" ]]; then sdk=(-sdk "$(xcrun --show-sdk-path)"); fi

# Only the interfaces, as a binary SDK's consumer has them: no .swiftmodule beside them.
rm -rf "$work"
mkdir -p "$work/interfaces" "$work/module-cache"
for module in "${modules[@]}"; do
    cp "$bin/$module.build/$module.swiftinterface" "$work/interfaces/"
done

for module in "${modules[@]}"; do
    echo "Verifying $module.swiftinterface"
    swiftc -frontend -typecheck-module-from-interface "$work/interfaces/$module.swiftinterface" \
        -module-name "$module" -I "$work/interfaces" -module-cache-path "$work/module-cache" \
        -target "$triple" "${sdk[@]}"
done

# The private interfaces add the test SPI (`@_spi(Testing)`, what the testing library reaches): they
# must verify too, each finding its dependencies' private interfaces beside the public ones.
mkdir -p "$work/private-interfaces" "$work/private-module-cache"
for module in "${modules[@]}"; do
    cp "$bin/$module.build/$module.swiftinterface" "$bin/$module.build/$module.private.swiftinterface" \
        "$work/private-interfaces/"
done
for module in "${modules[@]}"; do
    echo "Verifying $module.private.swiftinterface"
    swiftc -frontend -typecheck-module-from-interface "$work/private-interfaces/$module.private.swiftinterface" \
        -module-name "$module" -I "$work/private-interfaces" -module-cache-path "$work/private-module-cache" \
        -target "$triple" "${sdk[@]}"
done

echo "Building a client against the interfaces alone, linked against the release objects"
objects=()
for target in _SDKEventBusAtomics "${modules[@]}"; do
    while IFS= read -r object; do objects+=("$object"); done < <(find "$bin/$target.build" -name '*.o' | sort)
done
swiftc -O -swift-version 6 Scripts/library-evolution-client/main.swift \
    -I "$work/interfaces" -module-cache-path "$work/module-cache" -target "$triple" "${sdk[@]}" \
    "${objects[@]}" -o "$work/client"
"$work/client" Tests/SDKEventBusTests/Resources/project-config.json
