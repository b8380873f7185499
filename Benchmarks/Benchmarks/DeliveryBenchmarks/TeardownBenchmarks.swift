import Benchmark
import SDKEventBus

/// The owner counts of the teardown scenario: each doubling shows whether the cost per owner stays
/// flat.
let teardownOwnerCounts = [1_000, 2_000, 4_000, 8_000]

/// An owner as the `deinit { bus.cancelAll(ownedBy: self) }` pattern has them: a view model or a
/// connection actor with a few subscriptions of its own.
actor TeardownOwner {
    private(set) var received = 0

    func receive() { received &+= 1 }
}

/// Tearing down owners: `cancelAll(ownedBy:)` for each of N owners, each with three subscriptions
/// (two bound to it on the main actor, one isolated to it, which is bound to it too), on one bus.
///
/// One iteration subscribes every owner (not measured), then ends every owner's subscriptions in
/// turn (measured). `teardown per owner (ns)` divides by N: it stays flat when the teardown grows
/// linearly.
func registerTeardownBenchmarks() {
    let perOwner = BenchmarkMetric.custom("teardown per owner (ns)", useScalingFactor: false)
    for owners in teardownOwnerCounts {
        Benchmark(
            "teardown/\(owners.grouped) owners, 3 subscriptions each/SDKEventBus",
            configuration: .init(
                metrics: [.wallClock, perOwner], warmupIterations: 1, maxDuration: .seconds(5), maxIterations: 20)
        ) { @MainActor benchmark in
            for _ in benchmark.scaledIterations {
                let (bus, emitter) = EventBus.makeBus()
                let owned = (0..<owners).map { _ in TeardownOwner() }
                for owner in owned {
                    bus.on(.bucketing, owner: owner) { _, _ in }
                    bus.on(.conversion, owner: owner) { _, _ in }
                    bus.on(.segments, delivery: .isolated(to: owner)) { owner, _ in owner.receive() }
                }
                let start = ContinuousClock.now
                benchmark.startMeasurement()
                for owner in owned { bus.cancelAll(ownedBy: owner) }
                benchmark.stopMeasurement()
                let elapsed = ContinuousClock.now - start
                let nanoseconds =
                    elapsed.components.seconds * 1_000_000_000 + elapsed.components.attoseconds / 1_000_000_000
                benchmark.measurement(perOwner, Int(nanoseconds) / owners)
                precondition(bus.listenerCount(for: .segments) == 0, "every owner's subscriptions ended")
                await bus.flush()
                withExtendedLifetime((bus, emitter, owned)) {}
            }
        }
    }
}
