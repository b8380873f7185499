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

source "Scripts/lib/typecheck-snippets.sh"
prepare_compiler "${1:-}"

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
