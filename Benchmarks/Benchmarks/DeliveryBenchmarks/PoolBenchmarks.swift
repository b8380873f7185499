import Benchmark
import SDKEventBus

/// Sustained delivery fed from the cooperative pool (issue 23): fires from a detached task to
/// main-actor listeners, then `flush`, which is how an SDK's background work reaches app code.
///
/// One iteration is 10,000 fires; the wall clock divided by the callbacks made is the cost per
/// callback. The floor beside it calls the same number of main-actor closures in a bare loop on
/// the main actor (no bus, no hop), made like the listeners' callbacks: the targets are
/// ratios to it (N = 1 within 5×, N = 10 within 1.5×, N = 100 within 1.1×).
func registerPoolBenchmarks() {
    let fires = 10_000
    let configuration = Benchmark.Configuration(
        metrics: [.wallClock], timeUnits: .nanoseconds, warmupIterations: 3, maxDuration: .seconds(2),
        maxIterations: 1_000)
    for listeners in [1, 10, 100] {
        Benchmark(
            "pool → main actor, sustained/\(listeners) listeners/SDKEventBus",
            configuration: configuration
        ) { @MainActor benchmark in
            let (bus, emitter) = EventBus.makeBus()
            let counter = CallbackCounter()
            for _ in 0..<listeners { _ = bus.on(.bucketing) { _ in counter.count += 1 } }
            benchmark.startMeasurement()
            for _ in benchmark.scaledIterations {
                await Task.detached {
                    for _ in 0..<fires { emitter.fire(payload) }
                    await bus.flush()
                }.value
            }
            benchmark.stopMeasurement()
            precondition(counter.count == fires * listeners * benchmark.scaledIterations.count)
            emitter.shutdown()
        }
        Benchmark(
            "pool → main actor, sustained/\(listeners) listeners/bare closure loop (floor)",
            configuration: configuration
        ) { @MainActor benchmark in
            let sink = Sink()
            let callbacks = (0..<listeners).map { _ in callback(for: sink) }
            benchmark.startMeasurement()
            for _ in benchmark.scaledIterations {
                sink.expect(fires * listeners)
                for _ in 0..<fires {
                    for callback in callbacks { callback(payload) }
                }
                await sink.delivered()
            }
            benchmark.stopMeasurement()
            blackHole(sink.received)
        }
    }
}
