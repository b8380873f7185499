// A client of the package as a binary SDK ships it: compiled against the library products'
// .swiftinterface files alone (no .swiftmodule, no source), linked against their release objects,
// and run. Scripts/check-library-evolution.sh builds it; it exits 0 when every check held.

import Foundation
import SDKEventBus
import SDKEventBusTesting
import SDKEventBusTimeline

/// An app's own catalog on the core: the protocols, their requirements and the generic bus cross
/// the resilient boundary.
enum CartEvent: String, EventCatalog {
    case itemAdded = "item.added"
    case checkout

    typealias Payload = CartPayload

    var replayRule: ReplayRule { self == .checkout ? .sticky : .none }
}

enum CartPayload: CatalogPayload {
    case itemAdded(sku: String)
    case checkout(total: Int)

    var event: CartEvent {
        switch self {
        case .itemAdded: .itemAdded
        case .checkout: .checkout
        }
    }
}

var failures: [String] = []

@MainActor func check(_ condition: Bool, _ what: String) {
    if !condition { failures.append(what) }
}

// The built-in catalog: fire and deliver in every context, and a typed subscription.
let (bus, emitter) = EventBus.makeBus()
let immediate = LockedCounter()
let onMain = LockedCounter()
let typed = LockedCounter()
let tokens = [
    bus.on(.bucketing, delivery: .immediate) { _ in immediate.add() },
    bus.on(.bucketing) { _ in onMain.add() },
    bus.on(BucketingPayload.self, delivery: .immediate) { payload in
        if payload.variationId == "v" { typed.add() }
    },
]
for _ in 0..<100 {
    emitter.fire(.bucketing(BucketingPayload(experienceId: "e", variationId: "v", visitorId: "u")))
}
await bus.flush()
check(immediate.value == 100 && onMain.value == 100 && typed.value == 100, "built-in bus delivered 100 of each")
for token in tokens { token.cancel() }

// A catalog of the client's own, with a sticky event replayed to a late listener.
let (cart, cartEmitter) = CatalogBus<CartEvent>.makeBus()
cartEmitter.fire(.checkout(total: 42))
let replayed = LockedCounter()
let lateToken = cart.on(.checkout, delivery: .immediate) { payload in
    if case .checkout(42) = payload { replayed.add() }
}
await cart.flush()
check(replayed.value == 1, "the sticky checkout replayed to a late listener")
lateToken.cancel()

// The lifecycle on a test clock: a timed ready() that times out, then readiness from a fetch, waited
// for and read through the client's reader (what app code holds); the SDK shuts the client down.
let clock = TestClock()
var settings = SDKConfiguration(refreshInterval: nil)
settings.clock = clock
// The configuration: the test fixture, whose path the script passes.
let body = try Data(contentsOf: URL(fileURLWithPath: CommandLine.arguments[1]))
let service = MockConfigFetchService([.delayed(5, .body(body))], clock: clock)
let client = SDKClient(configuration: settings, fetchService: service)
let sdk = client.reader
let timed = Task { try await sdk.ready(timeout: 2, clock: clock) }
try await clock.waitForSleepers(2)
clock.advance(by: 2)
do {
    _ = try await timed.value
    check(false, "ready(timeout:clock:) timed out")
} catch let error as ReadinessError {
    check(error == .timedOut(after: 2), "ready(timeout:clock:) timed out after 2 s, got \(error)")
}
clock.advance(by: 3)
do {
    let readiness = try await sdk.ready()
    check(readiness.source == .live, "ready from a live fetch")
    check(sdk.config != nil && sdk.status.isReady, "the reader reads the configuration and the status")
} catch {
    check(false, "ready() from the scripted body: \(error)")
}
let report = await client.shutdown()
check(report.isComplete, "shutdown abandoned nothing: \(report)")
do {
    _ = try await sdk.ready()
    check(false, "the reader's ready() throws once the SDK shut down")
} catch let error as ReadinessError {
    check(error == .shutDown, "the reader's ready() throws shutDown, got \(error)")
}

// The timeline: recorded through the resilient boundary, with the file and line of this file's `on`.
let (traced, tracedEmitter) = EventBus.makeBus()
traced.timeline.start()
let tracedLine = #line + 1
traced.on(.bucketing, delivery: .immediate) { _ in }
tracedEmitter.fire(BucketingPayload(experienceId: "e", variationId: "v", visitorId: "u"))
traced.timeline.stop()
let deliveries = traced.timeline.records().filter { $0.kind == .delivery }
check(
    deliveries.count == 1 && deliveries[0].subscription.hasSuffix("/main.swift:\(tracedLine)"),
    "the timeline named the `on`: \(deliveries)")
check(String(decoding: traced.timeline.traceJSON(), as: UTF8.self).contains("\"traceEvents\""), "a trace was written")

if failures.isEmpty {
    print("library-evolution client: every check held")
} else {
    print("library-evolution client FAILED:\n- " + failures.joined(separator: "\n- "))
    exit(1)
}

/// A counter callbacks on any thread add to.
final class LockedCounter: @unchecked Sendable {
    // @unchecked: `count` is only reached under `lock`.
    private let lock = NSLock()
    private var count = 0

    var value: Int { lock.withLock { count } }

    func add() { lock.withLock { count += 1 } }
}
