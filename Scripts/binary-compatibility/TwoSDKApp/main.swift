// An app that links two binary SDKs, each built separately against a different release of
// SDKEventBus, and one copy of the package's shared libraries, the newer release: both SDKs' events
// arrive, on the firing thread and on the main actor, through one engine.
//
// Usage: two-sdk-app LIBRARY-DIRECTORY (where the package's libraries must be loaded from); exits 0
// when every check held.

import Dispatch
import Foundation
import SDKEventBusCore
import VendorAnalytics
import VendorFlags

var failures: [String] = []
@MainActor func check(_ condition: Bool, _ what: String) { if !condition { failures.append(what) } }

/// Subscribes through either SDK's facade: the one `CatalogSubscribing` both vendors conform to.
func listen<SDK: CatalogSubscribing>(
    to sdk: SDK, _ event: SDK.Catalog, recording events: Events, as name: String
) -> EventSubscription {
    sdk.on(event) { _ in events.append(name) }
}

/// What the listeners received, in order.
final class Events: @unchecked Sendable {
    // @unchecked: `names` is only reached under `lock`.
    private let lock = NSLock()
    private var names: [String] = []
    func append(_ name: String) { lock.withLock { names.append(name) } }
    var values: [String] { lock.withLock { names } }
}

let analytics = Analytics()
let flags = Flags(serving: #"{"flags":{"new-checkout":true,"dark-mode":false}}"#)

let onMain = Events()
let immediate = Events()
var subscriptions = SubscriptionSet()
listen(to: analytics, .tracked, recording: onMain, as: "analytics.tracked").store(in: &subscriptions)
listen(to: analytics, .uploaded, recording: onMain, as: "analytics.uploaded").store(in: &subscriptions)
listen(to: flags, .initialized, recording: onMain, as: "flags.initialized").store(in: &subscriptions)
analytics.on(.tracked, delivery: .immediate) { payload in
    if case .tracked(let name) = payload { immediate.append(name) }
}.store(in: &subscriptions)
analytics.on(.uploaded, delivery: .immediate) { payload in
    if case .uploaded(let count) = payload { immediate.append("uploaded \(count)") }
}.store(in: &subscriptions)
flags.on(.initialized, delivery: .immediate) { payload in
    if case .initialized(let count) = payload { immediate.append("flags: \(count)") }
}.store(in: &subscriptions)

do {
    try await flags.ready()
} catch {
    check(false, "the flag SDK became ready: \(error)")
}
analytics.track("Signed Up")
analytics.track("Checkout")
analytics.upload()
await analytics.bus.flush()
await flags.bus.flush()

check(flags.isEnabled("new-checkout") && !flags.isEnabled("dark-mode"), "the flag SDK's flags")
check(
    immediate.values == ["flags: 2", "Signed Up", "Checkout", "uploaded 2"],
    "both SDKs delivered on the firing thread: \(immediate.values)")
// Each bus keeps its own order; the two buses' deliveries may interleave.
check(
    onMain.values.filter { $0.hasPrefix("analytics.") }
        == ["analytics.tracked", "analytics.tracked", "analytics.uploaded"]
        && onMain.values.filter { $0.hasPrefix("flags.") } == ["flags.initialized"],
    "both SDKs delivered on the main actor: \(onMain.values)")

subscriptions.removeAll()
check(
    analytics.listenerCount(for: .tracked) == 0 && flags.listenerCount(for: .initialized) == 0,
    "one SubscriptionSet ended both SDKs' subscriptions")
await flags.shutdown()

// One engine: each of the package's libraries is loaded once, from the directory the app was given.
// (/proc files report no size, so they are read to their end rather than by their size.)
let maps = String(
    decoding: FileHandle(forReadingAtPath: "/proc/self/maps")?.readDataToEndOfFile() ?? Data(), as: UTF8.self)
let loaded = Set(maps.split(separator: "\n").compactMap { line in line.split(separator: " ").last.map(String.init) })
let expected = URL(fileURLWithPath: CommandLine.arguments[1]).standardizedFileURL.path
for library in ["libSDKEventBusCore.so", "libSDKEventBusConfig.so"] {
    let copies = loaded.filter { $0.hasSuffix("/" + library) }
    check(
        copies.count == 1
            && copies.allSatisfy { URL(fileURLWithPath: $0).deletingLastPathComponent().path == expected },
        "one \(library), from \(expected): \(copies.sorted())")
}

if failures.isEmpty {
    print("two-SDK app: both SDKs' events arrived through one engine")
} else {
    print("two-SDK app FAILED:\n- " + failures.joined(separator: "\n- "))
    exit(1)
}
