import SDKEventBus

// The SDK creates the bus and keeps the emitter; app code only ever sees the bus.
let (bus, emitter) = EventBus.makeBus()

// App code subscribes. Callbacks run on the main actor, in fire order.
let bucketing = await bus.on(.bucketing) { payload in
    guard case .bucketing(let bucketing) = payload else { return }
    print("app: visitor \(bucketing.visitorId) sees variation \(bucketing.variationId)")
}
let conversions = await bus.on(.conversion) { payload in
    guard case .conversion(let conversion) = payload else { return }
    print("app: visitor \(conversion.visitorId) converted on goal \(conversion.goalId)")
}
print("app: \(await bus.listenerCount(for: .bucketing)) bucketing listener, token \(bucketing)")

// The SDK fires; fire returns at once and delivery happens on the main actor.
await emitter.fire(.bucketing(BucketingPayload(experienceId: "100334665", variationId: "1003142551", visitorId: "u1")))
await emitter.fire(.conversion(ConversionPayload(goalId: "100322784", visitorId: "u1")))
await bus.flush()

// After off returns, the callback never runs again, even for events already fired.
await emitter.fire(.bucketing(BucketingPayload(experienceId: "100334665", variationId: "1003142550", visitorId: "u2")))
await bus.off(bucketing)
await bus.off(conversions)
await bus.flush()
print("app: unsubscribed; \(await bus.listenerCount(for: .bucketing)) bucketing listeners left")
