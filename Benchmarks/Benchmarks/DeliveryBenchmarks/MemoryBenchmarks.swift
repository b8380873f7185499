import Benchmark
import HeapStats
import SDKEventBus

/// Memory after a burst (issue 23): what a bus keeps once a burst has been delivered and its
/// listeners are gone.
///
/// 100 main-actor listeners; 1,000,000 fires from a detached task (100,000,000 callbacks); `flush`;
/// `off` of every listener; 100 ms idle. The heap in use (glibc's `mallinfo2`: every arena, mmapped
/// blocks included) is read with the listeners subscribed, before the burst ("before"), and at the
/// end ("after"), with the bus still alive. Each iteration makes its own bus. Linux only: elsewhere
/// the heap figures are 0.
func registerMemoryBenchmarks() {
    let fires = 1_000_000
    let listeners = 100
    let before = BenchmarkMetric.custom("heap in use before (KB)", useScalingFactor: false)
    let after = BenchmarkMetric.custom("heap in use after (KB)", useScalingFactor: false)
    let retained = BenchmarkMetric.custom("retained: after − before (KB, 0 if less)", useScalingFactor: false)
    let ratio = BenchmarkMetric.custom("after / before (%)", useScalingFactor: false)
    Benchmark(
        "memory/1,000,000 fires → 100 main-actor listeners, off, idle/SDKEventBus",
        configuration: .init(
            metrics: [before, after, retained, ratio], warmupIterations: 1, maxDuration: .seconds(120), maxIterations: 3
        )
    ) { @MainActor benchmark in
        for _ in benchmark.scaledIterations {
            let (bus, emitter) = EventBus.makeBus()
            var tokens: [EventListenerToken] = []
            tokens.reserveCapacity(listeners)
            for _ in 0..<listeners { tokens.append(bus.on(.bucketing) { _ in }) }
            let heapBefore = heap_stats_in_use()
            await Task.detached { for _ in 0..<fires { emitter.fire(payload) } }.value
            await bus.flush()
            for token in tokens { await bus.off(token) }
            tokens.removeAll(keepingCapacity: true)
            try? await Task.sleep(for: .milliseconds(100))
            let heapAfter = heap_stats_in_use()
            benchmark.measurement(before, Int(heapBefore / 1_024))
            benchmark.measurement(after, Int(heapAfter / 1_024))
            benchmark.measurement(retained, Int(heapAfter > heapBefore ? (heapAfter - heapBefore) / 1_024 : 0))
            benchmark.measurement(ratio, Int(heapAfter * 100 / max(heapBefore, 1)))
            withExtendedLifetime((bus, emitter)) {}
        }
    }
}

/// Memory after actors come and go: what a bus keeps once 4,000 actors, each with a subscription
/// isolated to itself, were subscribed at once, fired to, cancelled and released (per-connection
/// or per-screen actors).
///
/// The heap in use is read with the bus made and one main-actor listener subscribed ("before"),
/// and once every actor is gone ("after"), with the bus still alive; `retained per actor` divides
/// the difference by 4,000. Each iteration makes its own bus. Linux only.
func registerActorLaneMemoryBenchmarks() {
    let actors = 4_000
    let before = BenchmarkMetric.custom("heap in use before (KB)", useScalingFactor: false)
    let after = BenchmarkMetric.custom("heap in use after (KB)", useScalingFactor: false)
    let perActor = BenchmarkMetric.custom("retained per actor (B, 0 if less)", useScalingFactor: false)
    Benchmark(
        "memory/4,000 actors subscribed, fired to, cancelled, released/SDKEventBus",
        configuration: .init(
            metrics: [before, after, perActor], warmupIterations: 1, maxDuration: .seconds(60), maxIterations: 5)
    ) { @MainActor benchmark in
        for _ in benchmark.scaledIterations {
            let (bus, emitter) = EventBus.makeBus()
            bus.on(.bucketing) { _ in }
            let heapBefore = heap_stats_in_use()
            var owners = (0..<actors).map { _ in TeardownOwner() }
            for owner in owners {
                bus.on(.bucketing, delivery: .isolated(to: owner)) { owner, _ in owner.receive() }
            }
            emitter.fire(payload)
            await bus.flush()
            for owner in owners { bus.cancelAll(ownedBy: owner) }
            owners.removeAll()
            await bus.flush()
            let heapAfter = heap_stats_in_use()
            benchmark.measurement(before, Int(heapBefore / 1_024))
            benchmark.measurement(after, Int(heapAfter / 1_024))
            benchmark.measurement(perActor, Int(heapAfter > heapBefore ? (heapAfter - heapBefore) / actors : 0))
            withExtendedLifetime((bus, emitter)) {}
        }
    }
}
