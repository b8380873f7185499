#!/usr/bin/env bash
# Fails when app code holding what the guides tell an SDK to hand it, a client's `reader`
# (`CatalogReader`), can end readiness, tell the lifecycle about the app, pause, stop or shut the SDK
# down, reach the client, the store, the lifecycle or the emitter, or fire; or when it cannot do what
# is the app's: subscribe, wait for readiness, read the configuration and the status, refresh.
#
# As Combine's subject keeps `send` and hands out a publisher, the SDK keeps its `CatalogClient` (the
# controls) and the emitter, and hands app code `client.reader`. Each snippet is type-checked as
# another package's code (`swiftc -typecheck` against the built modules, without the package's
# name, so no `package` declaration is in reach):
#
# - the app's side must compile: every subscribing verb, `ready()` with and without a timeout,
#   `config`, `status`, `refreshNow()`, the bus's `flush()` and `listenerCount`, a copy sent to
#   another task, the reader in code generic over `CatalogSubscribing`, an SDK's extension of it;
# - each of the SDK's controls must fail on the reader, with the diagnostic that names why:
#   `failReadiness(with:)`, `handle(_:)`, `pauseRefreshing()`, `resumeRefreshing()`,
#   `stopFetching()`, `shutdown(timeout:)`; so must reaching the client, the store, the lifecycle or
#   the emitter through it, making a reader from a bus, and firing on its bus.
#
# Scripts/check-public-surface.sh checks the rest of the surface (no public way to fire but the
# emitter, no public property that hands one out); this checks what app code holds, as app code.
#
# Usage: Scripts/check-app-side.sh [--no-build | --self-test]
set -euo pipefail
cd "$(dirname "$0")/.."

work=$(mktemp -d)
trap 'rm -rf "$work"' EXIT
status=0

# Type-checks the file $1 with the compiler command in the array `compiler`.
typecheck() {
    "${compiler[@]}" "$1"
}

# Requires the snippet $2 (named $1) to type-check.
expect_compiles() {
    local file="$work/$1.swift" output
    printf '%s\n' "$2" >"$file"
    if output=$(typecheck "$file" 2>&1); then
        echo "ok: $1 compiles"
    else
        echo "error: $1 must compile, and does not:"
        echo "$output" | sed 's/^/    /'
        status=1
    fi
}

# Requires the snippet $2 (named $1) to fail to type-check with a diagnostic containing $3.
expect_rejected() {
    local file="$work/$1.swift" output
    printf '%s\n' "$2" >"$file"
    if output=$(typecheck "$file" 2>&1); then
        echo "error: $1 compiles; app code must not be able to do it (expected: $3)"
        status=1
    elif [[ "$output" != *"$3"* ]]; then
        echo "error: $1 is rejected, but not with \"$3\":"
        echo "$output" | grep -E 'error:' | sed 's/^/    /'
        status=1
    else
        echo "ok: $1 is rejected: $3"
    fi
}

if [[ "${1:-}" == "--self-test" ]]; then
    # The checks themselves, on plain Swift: a rejection with the expected diagnostic passes; one
    # that compiles, or fails for another reason, fails; a snippet that must compile and does not
    # fails.
    compiler=(swiftc -typecheck -swift-version 6)
    run() { (status=0; "$@" >/dev/null; echo $status); }
    [[ $(run expect_compiles Good 'let x = 1') == 0 ]] || { echo "self-test: good code failed"; exit 1; }
    [[ $(run expect_compiles Bad 'let x: Int = "a"') == 1 ]] || { echo "self-test: bad code passed"; exit 1; }
    [[ $(run expect_rejected Rejected 'struct S {}; S().stop()' "value of type 'S' has no member 'stop'") == 0 ]] || {
        echo "self-test: an expected rejection failed"
        exit 1
    }
    [[ $(run expect_rejected Compiles 'struct S { func stop() {} }; S().stop()' "has no member 'stop'") == 1 ]] || {
        echo "self-test: a snippet that compiles passed as rejected"
        exit 1
    }
    [[ $(run expect_rejected Other 'let x: Int = "a"' "has no member 'stop'") == 1 ]] || {
        echo "self-test: a rejection for another reason passed"
        exit 1
    }
    echo "self-test passed"
    exit 0
fi

if [[ "${1:-}" != "--no-build" ]]; then
    echo "Build: swift build --target SDKEventBus"
    swift build --target SDKEventBus >/dev/null || swift build --target SDKEventBus
fi
bin=$(swift build --show-bin-path)
# As another package compiles against the built modules: no -package-name.
compiler=(
    swiftc -typecheck -parse-as-library -swift-version 6 -I "$bin/Modules"
    -Xcc "-fmodule-map-file=$bin/_SDKEventBusAtomics.build/module.modulemap"
    -enable-upcoming-feature ExistentialAny -enable-upcoming-feature MemberImportVisibility
    -enable-upcoming-feature InternalImportsByDefault -enable-upcoming-feature NonisolatedNonsendingByDefault
)

# What every snippet starts with: app code that holds what an SDK handed it, the reader of the
# built-in catalog's client.
prelude='import Foundation
import SDKEventBus

/// What an SDK may add for app code: an extension of the reader, from what the reader reads.
extension CatalogReader where Catalog == SystemEvent {
    var experienceCount: Int { config?.experiences.count ?? 0 }
}

@MainActor final class AppModel {
    var subscriptions = SubscriptionSet()

    func use(_ sdk: CatalogReader<SystemEvent>) async throws {'
end='    }
}'
snippet() { printf '%s\n        %s\n%s\n' "$prelude" "$1" "$end"; }
type="'CatalogReader<SystemEvent>'"

echo "The app's side compiles"
expect_compiles AppSide "$(snippet '
        let readiness = try await sdk.ready()
        _ = readiness.source
        _ = try await sdk.ready(timeout: 2)
        _ = sdk.config?.accountId
        _ = sdk.experienceCount
        _ = sdk.status.isReady
        _ = try await sdk.refreshNow()
        sdk.on(.configUpdated) { _ in }.store(in: &subscriptions)
        sdk.on(.bucketing, delivery: .immediate) { _ in }.store(in: &subscriptions)
        sdk.once(.ready) { _ in }.store(in: &subscriptions)
        sdk.on(BucketingPayload.self) { _ in }.store(in: &subscriptions)
        let subscription = sdk.on(.conversion) { _ in }
        await sdk.off(subscription)
        for await _ in sdk.stream(.configUpdated) { break }
        _ = sdk.bus.listenerCount(for: .ready)
        await sdk.bus.flush()
        let copy = sdk
        Task.detached { _ = try await copy.ready() }
        listen(sdk)
    }
    func listen(_ events: some CatalogSubscribing<SystemEvent>) {
        events.on(.ready) { _ in }.store(in: &subscriptions)')"

echo "The SDK's controls, and what stands behind the reader, are out of app code's reach"
expect_rejected FailReadiness "$(snippet 'sdk.failReadiness(with: CancellationError())')" \
    "value of type $type has no member 'failReadiness'"
expect_rejected HandleAppLifecycleEvent "$(snippet 'sdk.handle(.willEnterForeground)')" \
    "value of type $type has no member 'handle'"
expect_rejected LowPowerMode "$(snippet 'sdk.handle(.lowPowerModeChanged(isEnabled: true))')" \
    "value of type $type has no member 'handle'"
expect_rejected PauseRefreshing "$(snippet 'sdk.pauseRefreshing()')" \
    "value of type $type has no member 'pauseRefreshing'"
expect_rejected ResumeRefreshing "$(snippet 'sdk.resumeRefreshing()')" \
    "value of type $type has no member 'resumeRefreshing'"
expect_rejected StopFetching "$(snippet 'sdk.stopFetching()')" \
    "value of type $type has no member 'stopFetching'"
expect_rejected Shutdown "$(snippet 'await sdk.shutdown()')" \
    "value of type $type has no member 'shutdown'"
expect_rejected ReachTheClient "$(snippet 'sdk.client.failReadiness(with: CancellationError())')" \
    "value of type $type has no member 'client'"
expect_rejected ReachTheStore "$(snippet 'sdk.store.failReadiness(with: CancellationError())')" \
    "value of type $type has no member 'store'"
expect_rejected ReachTheLifecycle "$(snippet 'sdk.lifecycle.stopFetching()')" \
    "'lifecycle' is inaccessible due to 'private' protection level"
expect_rejected ReachTheEmitter "$(snippet 'sdk.emitter.fire(.ready(ReadyPayload()))')" \
    "value of type $type has no member 'emitter'"
expect_rejected FireOnTheBus "$(snippet 'sdk.bus.fire(.ready(ReadyPayload()))')" \
    "'fire' is inaccessible due to 'package' protection level"
expect_rejected MakeAReaderFromABus "$(snippet '_ = CatalogReader<SystemEvent>(bus: sdk.bus)')" \
    "'CatalogReader<Catalog>' initializer is inaccessible due to 'internal' protection level"

if [[ $status -eq 0 ]]; then echo "App code holding a reader cannot end readiness, steer the lifecycle or fire"; fi
exit $status
