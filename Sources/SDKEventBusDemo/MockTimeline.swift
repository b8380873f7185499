import Foundation
import SDKEventBus
import SDKEventBusTesting
import SDKEventBusTimeline

/// The whole lifecycle against the scriptable mock: start offline → a degraded `ready()` → the
/// retry succeeds → listeners → a refresh that changes the config, with what changed → a refresh
/// with the same config → a visitor's events → a malformed body, rejected → unsubscribe →
/// shutdown.
///
/// With `tracePath`, the bus's timeline records it all (the lifecycle's steps too), and its trace
/// is written there at the end: open it in ui.perfetto.dev.
@MainActor
func playMockTimeline(tracePath: String? = nil) async throws {
    let timeline = Timeline()
    let service = MockConfigFetchService(
        [
            .failure(MockConfigFetchService.SimulatedError("connection reset by peer")),
            .body(DemoConfigs.json(DemoConfigs.first)),
            .config(DemoConfigs.updated),
            .config(DemoConfigs.updated),
            .body(DemoConfigs.truncated),
        ],
        afterScript: .hang
    )
    // The SDK's bus, made first so that its timeline records from the lifecycle's first step; the
    // bus names a listener that holds the main thread past a frame.
    let (bus, emitter) = EventBus.makeBus { diagnostic in timeline.log("bus", "\(diagnostic)") }
    if tracePath != nil { bus.timeline.start() }
    timeline.log("sdk", "SDKClient created; it starts loading the configuration in the background")
    // Degraded readiness: the app never hangs at launch offline; a later success fires as usual.
    let client = SDKClient(
        store: ConfigStore(emitter: emitter),
        configuration: timeline.configuration(readinessPolicy: .degraded()),
        fetchService: service
    )
    // The SDK keeps the client (its controls) and the emitter; app code holds the client's reader.
    let sdk = client.reader
    timeline.log("sdk", "the SDK keeps the client and the emitter, and hands the app client.reader")

    timeline.log("app", "awaiting sdk.ready() … (readiness policy: degraded, no cache)")
    let readiness = try await sdk.ready()
    timeline.log("app", "ready() returned as soon as the first attempt failed: \(readiness)")
    timeline.log("app", "the app starts with its defaults")
    // Before the retry can apply a configuration: its config.updated is delivered, after the replay
    // of .ready, on every run (the trace the guide shows has the same shape each time).
    let updates = sdk.on(.configUpdated) { payload in
        guard case .configUpdated(let update) = payload else { return }
        timeline.log("app", "config.updated: traffic split is now \(DemoConfigs.split(update.snapshot))")
        if let changes = update.changes { timeline.log("app", "config.updated says what changed: \(changes)") }
    }
    timeline.log("app", "subscribed to config.updated")
    sdk.bus.once(.ready) { _ in
        timeline.log("app", "a .ready listener added after readiness still ran once (.ready is sticky)")
    }
    // After a degraded start the first configuration is an update: ready has been announced.
    await timeline.follow(until: applied(.updated))
    let config = sdk.config
    timeline.log(
        "app",
        "the retry succeeded: \"\(config?.project.name ?? "?")\", \(config?.experiences.count ?? 0) experience(s)")

    let bucketing = sdk.bus.on(BucketingPayload.self) { bucketing in
        timeline.log("app", "bucketing: visitor \(bucketing.visitorId) → variation \(bucketing.variationId)")
    }
    let conversions = sdk.bus.on(ConversionPayload.self) { conversion in
        timeline.log("app", "conversion: visitor \(conversion.visitorId) reached goal \(conversion.goalId)")
        // A listener that does too much on the main thread: the bus names it (slow listener).
        holdTheMainThread(forMilliseconds: 40)
    }
    let forwarding = sdk.bus.on(.bucketing, delivery: .immediate) { _ in
        // An analytics forwarder, on the firing thread: nothing to hop for.
    }
    timeline.log("app", "subscribed to bucketing (and a forwarder on the firing thread) and conversion")
    await sdk.bus.flush()

    await timeline.follow(until: applied(.updated))
    await sdk.bus.flush()

    await timeline.follow(until: applied(.unchanged))
    timeline.log("app", "the same config again: no event fired")

    timeline.log("sdk", "a visitor arrives: the SDK fires bucketing and conversion through its emitter")
    emitter.fire(BucketingPayload(experienceId: "100334665", variationId: "1003142551", visitorId: "visitor-42"))
    emitter.fire(ConversionPayload(goalId: "100322784", visitorId: "visitor-42"))
    await sdk.bus.flush()

    await timeline.follow(until: rejected)
    timeline.log("app", "the malformed body changed nothing: split still \(DemoConfigs.split(sdk.config))")

    for token in [updates, bucketing, conversions, forwarding] {
        await sdk.off(token)
    }
    timeline.log("app", "unsubscribed: \(sdk.bus.listenerCount(for: .bucketing)) bucketing listener(s) left")

    let report = await client.shutdown()
    timeline.log("sdk", "shutdown() returned: \(report)")
    do {
        try await sdk.ready()
    } catch {
        timeline.log("app", "ready() after shutdown throws: \(error)")
    }
    if let tracePath {
        bus.timeline.stop()
        try bus.timeline.traceJSON(processName: "SDKEventBusDemo").write(to: URL(fileURLWithPath: tracePath))
        let count = bus.timeline.records().count
        timeline.log("sdk", "wrote the timeline (\(count) records) to \(tracePath): open it in ui.perfetto.dev")
    }
    timeline.log("sdk", "done")
}

/// Keeps the calling thread busy: the work a listener should not do on the main actor.
private func holdTheMainThread(forMilliseconds milliseconds: Double) {
    let start = Date()
    while Date().timeIntervalSince(start) * 1_000 < milliseconds {}
}
