#!/usr/bin/env bash
# Fails when the events-only SDK (Tests/AnalyticsSDK) takes anything from the package but the events
# product, SDKEventBusCore, or its tests (Tests/EventsOnlySDKTests) anything but the core and the
# core's testing part, SDKEventBusCoreTesting, or either uses more of them than their public API:
#
# 1. the Swift files of each target import only SDKEventBusCore, Foundation, Dispatch and, in the
#    tests, SDKEventBusCoreTesting, Testing and AnalyticsSDK;
# 2. Package.swift gives each target only those of them that are the package's own targets, and
#    SDKEventBusCoreTesting depends on SDKEventBusCore alone;
# 3. both build (`swift build --target EventsOnlySDKTests`), and type-check again as another
#    package's code, without the package's name, so that no `package` declaration is in reach, and
#    with only the modules they may take in reach (SDKEventBusCore, SDKEventBusCoreTesting and the
#    SDK), so that a module among them that needs another (the configuration half, the wire form,
#    the built-in catalog, the app buses) fails to load; as such code, app code that fires on the
#    SDK's bus, or reaches the facade's emitter, is rejected.
#
# Usage: Scripts/check-events-only.sh [--no-build | --self-test]
set -euo pipefail
cd "$(dirname "$0")/.."

sdk=Tests/AnalyticsSDK
tests=Tests/EventsOnlySDKTests
sdk_allowed='SDKEventBusCore Foundation Dispatch'
tests_allowed='SDKEventBusCore SDKEventBusCoreTesting AnalyticsSDK Foundation Testing Dispatch'

# The modules the Swift files under $1 import: `import M`, `@testable import M`,
# `public import struct M.T`, ….
imports_of() {
    grep -rhoE --include='*.swift' \
        '^[[:space:]]*(@[A-Za-z_]+(\([^)]*\))?[[:space:]]+)*((public|package|internal|fileprivate|private)[[:space:]]+)?import[[:space:]]+((typealias|struct|class|enum|protocol|let|var|func)[[:space:]]+)?[A-Za-z_][A-Za-z0-9_]*' \
        "$1" | awk '{ print $NF }' | sort -u
}

# Reads `swift package dump-package` on stdin; prints each dependency of the events-only targets
# that is not theirs to take, and fails if there is one.
check_dependencies() {
    python3 -c '
import json, sys
allowed = {
    "AnalyticsSDK": {"SDKEventBusCore"},
    "EventsOnlySDKTests": {"AnalyticsSDK", "SDKEventBusCore", "SDKEventBusCoreTesting"},
    "SDKEventBusCoreTesting": {"SDKEventBusCore"},
}
targets = {target["name"]: target for target in json.load(sys.stdin)["targets"]}
failed = False
for name, permitted in allowed.items():
    if name not in targets:
        print(f"error: Package.swift has no target {name}")
        failed = True
        continue
    for dependency in targets[name]["dependencies"]:
        kind, value = next(iter(dependency.items()))
        if kind == "product" or value[0] not in permitted:
            print(f"error: {name} depends on {kind} {value[0]}; it may depend only on {sorted(permitted)}")
            failed = True
sys.exit(1 if failed else 0)
'
}

status=0
# Fails the check for each module that $1's files import and $2 does not allow.
check_imports() {
    local module
    for module in $(imports_of "$1"); do
        if [[ " $2 " != *" $module "* ]]; then
            echo "error: $1 imports $module; it may import only: $2"
            status=1
        fi
    done
}

if [[ "${1:-}" == "--self-test" ]]; then
    fixture=$(mktemp -d)
    trap 'rm -rf "$fixture"' EXIT
    printf '%s\n' 'import Foundation' '@testable import SDKEventBusTesting' '@_spi(Testing) public import SDKEventBus' \
        'internal import struct SDKEventBusConfig.Readiness' '  import SDKEventBusCore' '// import Commented' \
        'let text = "import Quoted"' >"$fixture/Fixture.swift"
    found=$(imports_of "$fixture" | tr '\n' ' ')
    expected='Foundation SDKEventBus SDKEventBusConfig SDKEventBusCore SDKEventBusTesting '
    [[ "$found" == "$expected" ]] || { echo "self-test: found '$found', expected '$expected'"; exit 1; }
    [[ "$(check_imports "$fixture" "$sdk_allowed")" == *"imports SDKEventBusTesting"* ]] || {
        echo "self-test: a forbidden import passed"
        exit 1
    }
    # The tests may take the core's testing part, never the whole testing library.
    [[ "$(check_imports "$fixture" "$tests_allowed")" == *"imports SDKEventBusTesting"* ]] || {
        echo "self-test: the tests' import of SDKEventBusTesting passed"
        exit 1
    }
    manifest() { # the dependencies of EventsOnlySDKTests, then of SDKEventBusCoreTesting
        printf '{"targets": [{"name": "AnalyticsSDK", "dependencies": [{"byName": ["SDKEventBusCore", null]}]},
            {"name": "EventsOnlySDKTests", "dependencies": [%s]},
            {"name": "SDKEventBusCoreTesting", "dependencies": [%s]}]}' "$1" "$2"
    }
    core='{"byName": ["SDKEventBusCore", null]}'
    tests="{\"byName\": [\"AnalyticsSDK\", null]}, $core, {\"byName\": [\"SDKEventBusCoreTesting\", null]}"
    manifest "$tests" "$core" | check_dependencies >/dev/null || {
        echo "self-test: the allowed dependencies failed"
        exit 1
    }
    for bad in "$(manifest "$tests, {\"byName\": [\"SDKEventBusTesting\", null]}" "$core")" \
        "$(manifest "$tests" "$core, {\"byName\": [\"SDKEventBusConfig\", null]}")"; do
        if echo "$bad" | check_dependencies >/dev/null; then
            echo "self-test: a forbidden dependency passed: $bad"
            exit 1
        fi
    done
    echo "self-test passed"
    exit 0
fi

echo "Imports"
check_imports "$sdk" "$sdk_allowed"
check_imports "$tests" "$tests_allowed"

echo "Package.swift dependencies"
swift package dump-package | check_dependencies || status=1

if [[ "${1:-}" == "--no-build" || $status -ne 0 ]]; then exit $status; fi

echo "Build: swift build --target EventsOnlySDKTests"
swift build --target EventsOnlySDKTests >/dev/null || swift build --target EventsOnlySDKTests
bin=$(swift build --show-bin-path)
work=$(mktemp -d)
trap 'rm -rf "$work"' EXIT
# Only the modules an events-only SDK and its tests may take: one of them that imports another
# module of the package does not load.
mkdir "$work/modules"
for module in SDKEventBusCore SDKEventBusCoreTesting AnalyticsSDK; do
    cp -R "$bin/Modules/$module.swiftmodule" "$work/modules/"
done
# As another package compiles against the built modules: no -package-name.
typecheck() {
    swiftc -typecheck -parse-as-library -swift-version 6 -I "$work/modules" \
        -Xcc "-fmodule-map-file=$bin/_SDKEventBusAtomics.build/module.modulemap" \
        -enable-upcoming-feature ExistentialAny -enable-upcoming-feature MemberImportVisibility \
        -enable-upcoming-feature InternalImportsByDefault -enable-upcoming-feature NonisolatedNonsendingByDefault \
        "$@"
}

echo "Public API only: both targets type-check outside the package"
typecheck -module-name AnalyticsSDKOutside $(find "$sdk" -name '*.swift') || status=1
typecheck -module-name EventsOnlySDKTests $(find "$tests" -name '*.swift') || status=1

echo "App code cannot fire"
app='import AnalyticsSDK
import SDKEventBusCore
func app(_ analytics: Analytics) {
    analytics.on(.queueFlushed) { _ in }
    analytics.events.on(.queueFlushed) { _ in }
    analytics.track("Signed Up")'
printf '%s\n    %s\n}\n' "$app" '' >"$work/Allowed.swift"
typecheck "$work/Allowed.swift" || { echo "error: app code that only listens does not type-check"; status=1; }
for attempt in 'analytics.events.fire(QueueFlushedPayload(eventCount: 1))' 'analytics.bus.fire(QueueFlushedPayload(eventCount: 1))' \
    'analytics.emitter.fire(QueueFlushedPayload(eventCount: 1))'; do
    printf '%s\n    %s\n}\n' "$app" "$attempt" >"$work/Fire.swift"
    if output=$(typecheck "$work/Fire.swift" 2>&1); then
        echo "error: app code can fire: $attempt"
        status=1
    elif [[ "$output" != *"is inaccessible due to"* ]]; then
        echo "error: \`$attempt\` failed for another reason than access:"
        echo "$output"
        status=1
    fi
done

if [[ $status -eq 0 ]]; then
    echo "The events-only SDK takes SDKEventBusCore alone, and its tests SDKEventBusCoreTesting beside it, through their public API"
fi
exit $status
