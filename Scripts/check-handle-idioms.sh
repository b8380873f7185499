#!/usr/bin/env bash
# Fails when the idioms of Combine's `AnyCancellable` that would leak a subscription silently, or
# verbs that would claim an SDK facade's own words, compile against the package, or when the good
# idioms do not.
#
# Each snippet is type-checked as another package's code (`swiftc -typecheck` against the built
# modules, without the package's name, so no `package` declaration is in reach):
#
# - the good idioms must compile: `store(in: &subscriptions)` on a `SubscriptionSet` from every bus
#   (catalog bus, client, facade, app bus), `removeAll()`, a `Set<EventSubscription>` of tokens,
#   `stream(…)`, `bus.flush()` and `client.bus.flush()`, a facade with its own `flush()`, `events`
#   and `reset()`;
# - each bad idiom must fail, with the diagnostic that names why: `insert` or `remove` on a
#   `SubscriptionSet`, `store(in:)` into a `Set<EventSubscription>` or an array, `flush()` in code
#   generic over `CatalogSubscribing` or on the client, `events(…)` on any bus.
#
# Usage: Scripts/check-handle-idioms.sh [--no-build | --self-test]
set -euo pipefail
cd "$(dirname "$0")/.."

source "Scripts/lib/typecheck-snippets.sh"
prepare_compiler "${1:-}"

# What every snippet starts with: an app's model, the built-in catalog's bus and client, an SDK's
# facade with its own verbs, and an app bus.
prelude='import SDKEventBus

struct Ping: AppEvent {}

/// An analytics SDK'"'"'s facade: its own `flush()` (upload), `events` and `reset()`.
final class Analytics: CatalogSubscribing {
    let bus: EventBus
    init(bus: EventBus) { self.bus = bus }
    var events: [String] { [] }
    func flush() async {}
    func reset() {}
}

protocol Uploading { func flush() async }
extension Analytics: Uploading {}

@MainActor final class Model {
    var subscriptions = SubscriptionSet()
    var tokens: Set<EventSubscription> = []

    func idioms(bus: EventBus, client: SDKClient, analytics: Analytics, appBus: AppEventBus) async {'
end='    }
}'
snippet() { printf '%s\n        %s\n%s\n' "$prelude" "$1" "$end"; }

echo "The good idioms compile"
expect_compiles GoodIdioms "$(snippet '
        bus.on(.ready) { _ in }.store(in: &subscriptions)
        client.on(.ready, delivery: .immediate) { _ in }.store(in: &subscriptions)
        analytics.on(BucketingPayload.self) { _ in }.store(in: &subscriptions)
        appBus.on(Ping.self) { _ in }.store(in: &subscriptions)
        let count: Int = subscriptions.count
        let empty: Bool = subscriptions.isEmpty
        _ = (count, empty)
        subscriptions.removeAll()
        tokens.insert(bus.on(.ready) { _ in })
        for token in tokens { await bus.off(token) }
        for await _ in bus.stream(.ready) {}
        for await _ in client.stream([.ready, .bucketing], bufferingPolicy: .unbounded) {}
        for await _ in analytics.stream(of: BucketingPayload.self, replayLatest: true) {}
        for await _ in appBus.stream(of: Ping.self) {}
        await bus.flush()
        await client.bus.flush()
        await appBus.flush()
        await analytics.flush()
        _ = analytics.events.count
        analytics.reset()
        await upload(analytics)
    }
    func upload(_ sdk: some CatalogSubscribing & Uploading) async {
        await sdk.flush()')"

echo "The idioms that would leak or mislead are rejected"
expect_rejected InsertIntoSubscriptionSet "$(snippet 'subscriptions.insert(bus.on(.ready) { _ in })')" \
    "value of type 'SubscriptionSet' has no member 'insert'"
expect_rejected StoreInSetOfEventSubscription "$(snippet 'bus.on(.ready) { _ in }.store(in: &tokens)')" \
    "cannot convert value of type 'Set<EventSubscription>' to expected argument type 'SubscriptionSet'"
expect_rejected StoreInArrayOfEventSubscription "$(snippet 'var array: [EventSubscription] = []
        bus.on(.ready) { _ in }.store(in: &array)')" \
    "cannot convert value of type '[EventSubscription]' to expected argument type 'SubscriptionSet'"
expect_rejected RemoveFromSubscriptionSet "$(snippet 'subscriptions.remove(bus.on(.ready) { _ in })')" \
    "value of type 'SubscriptionSet' has no member 'remove'"
expect_rejected FlushInGenericCode "$(snippet '}
    func drain(_ sdk: some CatalogSubscribing) async {
        await sdk.flush()')" \
    "value of type 'some CatalogSubscribing' has no member 'flush'"
expect_rejected FlushOnTheClient "$(snippet 'await client.flush()')" \
    "value of type 'SDKClient' (aka 'CatalogClient<SystemEvent>') has no member 'flush'"
expect_rejected EventsSequence "$(snippet 'for await _ in bus.events(.ready) {}')" \
    "value of type 'EventBus' (aka 'CatalogBus<SystemEvent>') has no member 'events'"
expect_rejected AppBusEventsSequence "$(snippet 'for await _ in appBus.events(of: Ping.self) {}')" \
    "value of type 'AppEventBus' has no member 'events'"

if [[ $status -eq 0 ]]; then echo "Handles never leak silently; facades keep their verbs"; fi
exit $status
