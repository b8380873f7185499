import Benchmark
import SDKEventBus
import SDKEventBusTesting

let payload = EventPayloadValue.bucketing(
    BucketingPayload(experienceId: "100334665", variationId: "1003142551", visitorId: "visitor-42")
)

/// How many fires share one wait in the sustained scenarios.
let firesPerRound = 100

/// How many subscribe + unsubscribe pairs one iteration of that scenario times.
let pairsPerRound = 100

/// The listener counts of the `once` scenario: doubling them shows whether the cost grows linearly.
let onceListenerCounts = [3_000, 6_000, 12_000]

/// The listener count of the actor-delivery scenarios.
let actorListeners = 100

let benchmarks: @Sendable () -> Void = {
    let deliveryPeers: [any DeliveryPeer.Type] = [
        SDKEventBusPeer.self,
        ExternalCatalogPeer.self,
        ImmediatePeer.self,
        ReferenceActorPeer.self,
        LockedBusPeer.self,
        NotificationCenterPeer.self,
        AsyncStreamPeer.self,
        ClosureLoopPeer.self,
        AppBusImmediatePeer.self,
        TypeKeyedLockedBusPeer.self,
        AppBusMainActorPeer.self,
        TypeKeyedTaskPerCallbackPeer.self,
    ]
    // One task per fire is no floor for sustained delivery, where fires share a hop: latency only.
    let latencyOnlyPeers: [any DeliveryPeer.Type] = [MainActorHopPeer.self]
    let subscriptionPeers: [any SubscriptionPeer.Type] = [
        SDKEventBusSubscriptionPeer.self,
        ReferenceActorSubscriptionPeer.self,
        LockedBusSubscriptionPeer.self,
        NotificationCenterSubscriptionPeer.self,
    ]
    let actorPeers: [any ActorDeliveryPeer.Type] = [
        SDKEventBusActorPeer.self, AppBusActorPeer.self, TaskPerCallbackActorPeer.self,
    ]

    Benchmark.defaultConfiguration = .init(
        metrics: [.wallClock, .mallocCountTotal],
        timeUnits: .nanoseconds,
        warmupIterations: 10,
        maxDuration: .seconds(1),
        maxIterations: 100_000
    )

    for listeners in [1, 10, 100, 1_000] {
        for peer in deliveryPeers {
            // Sustained: 100 fires back to back from the main actor, then until every callback ran.
            // One iteration is 100 fires; the report divides.
            Benchmark("sustained/\(listeners) listeners/\(peer.name)") { @MainActor benchmark in
                let sink = Sink()
                let design = await peer.init(listeners: listeners, sink: sink)
                benchmark.startMeasurement()
                for _ in benchmark.scaledIterations {
                    sink.expect(listeners * firesPerRound)
                    for _ in 0..<firesPerRound { await design.fire(payload) }
                    await sink.delivered()
                }
                benchmark.stopMeasurement()
                blackHole(sink.received)
            }
        }
        for peer in deliveryPeers + latencyOnlyPeers {
            // Latency: one fire from the main actor, then until every callback ran.
            Benchmark("latency/\(listeners) listeners/\(peer.name)") { @MainActor benchmark in
                let sink = Sink()
                let design = await peer.init(listeners: listeners, sink: sink)
                benchmark.startMeasurement()
                for _ in benchmark.scaledIterations {
                    sink.expect(listeners)
                    await design.fire(payload)
                    await sink.delivered()
                }
                benchmark.stopMeasurement()
                blackHole(sink.received)
            }
        }
    }

    // Delivery to listeners isolated to one custom actor, from the main actor: 100 fires then until
    // every callback ran (one iteration is 100 fires; the report divides), and one fire then until
    // its callbacks ran. The loop crosses to the actor once per round to wait.
    for peer in actorPeers {
        Benchmark("actor, sustained/\(actorListeners) listeners/\(peer.name)") { @MainActor benchmark in
            let sink = ActorSink()
            let design = peer.init(listeners: actorListeners, sink: sink)
            var total = 0
            benchmark.startMeasurement()
            for _ in benchmark.scaledIterations {
                total += actorListeners * firesPerRound
                for _ in 0..<firesPerRound { design.fire(payload) }
                await sink.delivered(total: total)
            }
            benchmark.stopMeasurement()
            blackHole(design)
        }
        Benchmark("actor, latency/\(actorListeners) listeners/\(peer.name)") { @MainActor benchmark in
            let sink = ActorSink()
            let design = peer.init(listeners: actorListeners, sink: sink)
            var total = 0
            benchmark.startMeasurement()
            for _ in benchmark.scaledIterations {
                total += actorListeners
                design.fire(payload)
                await sink.delivered(total: total)
            }
            benchmark.stopMeasurement()
            blackHole(design)
        }
    }

    // What `fire` costs the SDK's own code with 100 listeners; delivery happens after the
    // measurement. One iteration is 100 fires.
    Benchmark("caller side/100 listeners/SDKEventBus") { @MainActor benchmark in
        let sink = Sink()
        let peer = await SDKEventBusPeer(listeners: 100, sink: sink)
        sink.expect(.max)
        for _ in benchmark.scaledIterations {
            benchmark.startMeasurement()
            for _ in 0..<firesPerRound { peer.fire(payload) }
            benchmark.stopMeasurement()
            await peer.bus.flush()
        }
    }
    Benchmark("caller side/100 listeners/reference actor + Task per callback") { @MainActor benchmark in
        let sink = Sink()
        let peer = await ReferenceActorPeer(listeners: 100, sink: sink)
        for _ in benchmark.scaledIterations {
            sink.expect(100 * firesPerRound)
            benchmark.startMeasurement()
            for _ in 0..<firesPerRound { await peer.fire(payload) }
            benchmark.stopMeasurement()
            await sink.delivered()
        }
    }

    // A fire of an event the bus replays to late listeners (`.ready` is sticky) keeps a copy of its
    // payload and lets the one it replaces go, against a fire of an event without replay; one
    // immediate listener, so the fire's own cost is what is timed. One iteration is 100 fires.
    let replayed = EventPayloadValue.ready(ReadyPayload(source: .live, configAgeSeconds: 1, error: nil))
    for (name, fired) in [("replayed event", replayed), ("event without replay", payload)] {
        Benchmark("fire, \(name)/1 immediate listener/SDKEventBus") { benchmark in
            let (bus, emitter) = EventBus.makeBus()
            recordIfAsked(bus)
            let count = FireCount()
            let subscription = bus.on(fired.event, delivery: .immediate) { _ in count.value += 1 }
            emitter.fire(fired)  // the replayed one keeps a payload from now on
            benchmark.startMeasurement()
            for _ in benchmark.scaledIterations {
                for _ in 0..<firesPerRound { emitter.fire(fired) }
            }
            benchmark.stopMeasurement()
            blackHole(count.value)
            subscription.cancel()
        }
    }

    // One fire to `once` listeners on the main actor, then until every callback ran: each callback
    // ends its own subscription. Against one fire to as many plain `on` listeners. The listeners are
    // subscribed before the measurement, afresh for every sample.
    let onceConfiguration = Benchmark.Configuration(
        metrics: [.wallClock, .mallocCountTotal],
        timeUnits: .microseconds,
        warmupIterations: 3,
        maxDuration: .seconds(2),
        maxIterations: 2_000
    )
    for listeners in onceListenerCounts {
        Benchmark("once/\(listeners.grouped) listeners/SDKEventBus", configuration: onceConfiguration) {
            @MainActor benchmark in
            let sink = Sink()
            let (bus, emitter) = EventBus.makeBus()
            for _ in benchmark.scaledIterations {
                for _ in 0..<listeners { bus.once(.bucketing, callback: callback(for: sink)) }
                sink.expect(listeners)
                benchmark.startMeasurement()
                emitter.fire(payload)
                await sink.delivered()
                benchmark.stopMeasurement()
            }
            precondition(bus.listenerCount(for: .bucketing) == 0)
        }
    }
    let onceBaseline = onceListenerCounts.last!
    Benchmark("once/\(onceBaseline.grouped) listeners/plain on", configuration: onceConfiguration) {
        @MainActor benchmark in
        let sink = Sink()
        let (bus, emitter) = EventBus.makeBus()
        for _ in 0..<onceBaseline { _ = bus.on(.bucketing, callback: callback(for: sink)) }
        for _ in benchmark.scaledIterations {
            sink.expect(onceBaseline)
            benchmark.startMeasurement()
            emitter.fire(payload)
            await sink.delivered()
            benchmark.stopMeasurement()
        }
    }

    // Subscribe + unsubscribe with 10,000 live listeners. One iteration is 100 pairs on the same
    // bus, so that a sample is the amortized cost and not one pair's clock reads and cold caches;
    // the report divides.
    for peer in subscriptionPeers {
        Benchmark("subscribe+unsubscribe/10,000 live/\(peer.name)") { benchmark in
            let design = await peer.init(liveListeners: 10_000)
            benchmark.startMeasurement()
            for _ in benchmark.scaledIterations {
                for _ in 0..<pairsPerRound { await design.subscribeAndUnsubscribe() }
            }
            benchmark.stopMeasurement()
        }
    }
    // The same pairs while another task fires the pairs' event on the same bus in a loop (one fire,
    // then until it was delivered: about eight fires during the 100 pairs), so that the main actor
    // is delivering to that event's 1,000 listeners throughout (issue #12).
    Benchmark("subscribe+unsubscribe/10,000 live, firing/SDKEventBus") { benchmark in
        let design = await SDKEventBusSubscriptionPeer(liveListeners: 10_000)
        var firer: Task<Int, Never>?
        await withCheckedContinuation { (started: CheckedContinuation<Void, Never>) in
            firer = Task { await design.fireContinuously(burst: 1) { started.resume() } }
        }
        benchmark.startMeasurement()
        for _ in benchmark.scaledIterations {
            for _ in 0..<pairsPerRound { await design.subscribeAndUnsubscribe() }
        }
        benchmark.stopMeasurement()
        firer?.cancel()
        blackHole(await firer?.value)
    }

    // Memory held per live subscription: the bytes still allocated after 100,000 subscriptions,
    // with callbacks that capture nothing so that only the bus's own memory counts.
    Benchmark(
        "memory/100,000 live subscriptions/SDKEventBus",
        configuration: .init(metrics: [.memoryLeakedBytes, .memoryLeaked], maxIterations: 10)
    ) { benchmark in
        for _ in benchmark.scaledIterations {
            let (bus, emitter) = EventBus.makeBus()
            benchmark.startMeasurement()
            for index in 0..<100_000 {
                _ = bus.on(SystemEvent.allCases[index % 10]) { _ in }
            }
            benchmark.stopMeasurement()
            emitter.shutdown()
        }
    }
    Benchmark(
        "memory/100,000 live subscriptions/reference actor + Task per callback",
        configuration: .init(metrics: [.memoryLeakedBytes, .memoryLeaked], maxIterations: 10)
    ) { benchmark in
        for _ in benchmark.scaledIterations {
            let bus = ReferenceActorBus()
            benchmark.startMeasurement()
            for index in 0..<100_000 {
                _ = await bus.on(SystemEvent.allCases[index % 10]) { _ in }
            }
            benchmark.stopMeasurement()
            blackHole(bus)
        }
    }

    // Resuming 10,000 suspended `ready()` callers, against resuming 10,000 bare continuations.
    Benchmark("ready/resume 10,000 waiters/ConfigStore", configuration: .init(maxIterations: 200)) { benchmark in
        for _ in benchmark.scaledIterations {
            let store = ConfigStore(emitter: EventBus.makeBus().emitter)
            await withTaskGroup(of: Void.self) { group in
                for _ in 0..<10_000 { group.addTask { _ = try? await store.waitForReady() } }
                do {
                    try await store.waitForReadyWaiters(10_000, within: 60)
                } catch {
                    fatalError("the 10,000 waiters did not all suspend: \(error)")
                }
                benchmark.startMeasurement()
                await store.setConfig(readyConfig)
                benchmark.stopMeasurement()
            }
        }
    }
    Benchmark("ready/resume 10,000 waiters/bare continuations", configuration: .init(maxIterations: 200)) { benchmark in
        for _ in benchmark.scaledIterations {
            let waiters = BareWaiters()
            await withTaskGroup(of: Void.self) { group in
                for _ in 0..<10_000 { group.addTask { await waiters.wait() } }
                while waiters.count < 10_000 { await Task.yield() }
                benchmark.startMeasurement()
                waiters.resumeAll()
                benchmark.stopMeasurement()
            }
        }
    }
    registerDecodingBenchmarks()
    registerBurstBenchmarks()
    registerMemoryBenchmarks()
    registerPoolBenchmarks()
    registerTeardownBenchmarks()
    registerActorLaneMemoryBenchmarks()
    registerContainerBenchmarks()
}

let readyConfig = ProjectConfig(accountId: "1", project: .init(id: "1", name: "benchmark"))

extension Int {
    /// The count as the scenario names spell it: 12,000.
    var grouped: String {
        let digits = String(self)
        var out = ""
        for (index, digit) in digits.enumerated() {
            if index > 0, (digits.count - index) % 3 == 0 { out.append(",") }
            out.append(digit)
        }
        return out
    }
}

/// Callbacks counted on the thread that fires: an immediate listener runs there, before `fire`
/// returns.
final class FireCount: @unchecked Sendable {
    // @unchecked: written only by the benchmark's own thread, the one that fires.
    var value = 0
}
