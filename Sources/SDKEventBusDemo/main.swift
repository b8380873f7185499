// A whole SDK lifecycle against the scriptable mock, as a timeline:
// start → a failed fetch, retried → ready → listeners → a refresh that changes the config →
// a refresh with the same config → a visitor's events → a malformed body, rejected →
// unsubscribe → shutdown.

import Foundation
import SDKEventBus

let start = ContinuousClock.now

func log(_ who: String, _ message: String) {
    let elapsed = (ContinuousClock.now - start) / .milliseconds(1) / 1_000
    print(String(format: "+%.3fs  %@  %@", elapsed, who.padding(toLength: 3, withPad: " ", startingAt: 0), message))
}

// MARK: The configurations the mock CDN serves

let firstConfig = ProjectConfig(
    accountId: "10035569",
    project: .init(id: "10034190", name: "Demo project"),
    experiences: [
        .init(
            id: "100334665",
            key: "checkout-button",
            name: "Checkout button",
            variations: [
                .init(id: "1003142550", key: "original", name: "Original", trafficAllocation: 50),
                .init(id: "1003142551", key: "green", name: "Green button", trafficAllocation: 50),
            ]
        )
    ],
    goals: [.init(id: "100322784", key: "purchase", name: "Purchase", type: "revenue")]
)
var updatedConfig = firstConfig
updatedConfig.experiences[0].variations[0].trafficAllocation = 20
updatedConfig.experiences[0].variations[1].trafficAllocation = 80

let encoder = JSONEncoder()
encoder.outputFormatting = .sortedKeys
let firstBody = try encoder.encode(firstConfig)
let truncatedBody = Data(String(decoding: firstBody, as: UTF8.self).prefix(60).utf8)

let service = MockConfigFetchService(
    [
        .failure(MockConfigFetchService.SimulatedError("connection reset by peer")),
        .body(firstBody),
        .config(updatedConfig),
        .config(updatedConfig),
        .body(truncatedBody),
    ],
    afterScript: .hang
)

// MARK: The SDK

let (steps, stepSink) = AsyncStream<LifecycleDiagnostic>.makeStream()
let configuration = SDKConfiguration(
    refreshInterval: .milliseconds(250),
    retryPolicy: RetryPolicy(initialDelay: .milliseconds(150), jitter: 0),
    diagnostics: { step in
        log("sdk", step.description)
        stepSink.yield(step)
    }
)
log("sdk", "SDKClient created; it starts loading the configuration in the background")
let (sdk, emitter) = SDKClient.make(configuration: configuration, fetchService: service)

/// Waits for the SDK's lifecycle to reach a step (each step is printed as it happens).
func follow(until isDone: (LifecycleDiagnostic) -> Bool) async {
    for await step in steps where isDone(step) { return }
}
func applied(_ change: ConfigChange) -> (LifecycleDiagnostic) -> Bool {
    { if case .configApplied(change) = $0 { true } else { false } }
}

// MARK: The app

let app = Task { @MainActor in
    log("app", "awaiting sdk.ready() …")
    try await sdk.ready()
    let config = await sdk.config
    log("app", "ready() returned: \"\(config?.project.name ?? "?")\", \(config?.experiences.count ?? 0) experience(s)")
}
await follow(until: applied(.first))
try await app.value

let updates = await sdk.on(.configUpdated) { payload in
    guard case .configUpdated(let update) = payload, let snapshot = update.snapshot else { return }
    let split = snapshot.experiences[0].variations.map { "\($0.key) \(Int($0.trafficAllocation))%" }
    log("app", "config.updated: traffic split is now \(split.joined(separator: " / "))")
}
let bucketing = await sdk.on(.bucketing) { payload in
    guard case .bucketing(let bucketing) = payload else { return }
    log("app", "bucketing: visitor \(bucketing.visitorId) → variation \(bucketing.variationId)")
}
let conversions = await sdk.on(.conversion) { payload in
    guard case .conversion(let conversion) = payload else { return }
    log("app", "conversion: visitor \(conversion.visitorId) reached goal \(conversion.goalId)")
}
log("app", "subscribed to config.updated, bucketing and conversion")
_ = await sdk.bus.once(.ready) { _ in
    log("app", "a .ready listener added after readiness still ran once (.ready is sticky)")
}
await sdk.bus.flush()

await follow(until: applied(.updated))
await sdk.bus.flush()

await follow(until: applied(.unchanged))
log("app", "the same config again: no event fired")

log("sdk", "a visitor arrives: the SDK fires bucketing and conversion through its emitter")
await emitter.fire(
    .bucketing(BucketingPayload(experienceId: "100334665", variationId: "1003142551", visitorId: "visitor-42")))
await emitter.fire(.conversion(ConversionPayload(goalId: "100322784", visitorId: "visitor-42")))
await sdk.bus.flush()

await follow { if case .fetchFailed(let error, _, _) = $0 { error is ConfigDecodingError } else { false } }
let kept = await sdk.config
log(
    "app",
    "the malformed body changed nothing: split still \(Int(kept?.experiences[0].variations[1].trafficAllocation ?? 0))% green"
)

for token in [updates, bucketing, conversions] {
    await sdk.off(token)
}
log("app", "unsubscribed: \(await sdk.bus.listenerCount(for: .bucketing)) bucketing listener(s) left")

await sdk.shutdown()
await follow { if case .stopped = $0 { true } else { false } }
do {
    try await sdk.ready()
} catch {
    log("app", "ready() after shutdown throws: \(error)")
}
log("sdk", "done")
