import Benchmark
import Foundation
import SDKEventBus

#if canImport(Glibc)
    import Glibc
#endif

/// The scope counts of the container scenario: each doubling shows whether the cost per scope stays
/// flat.
let containerScopeCounts = [5_000, 10_000, 20_000, 40_000]

/// How many lookups one iteration of the lookup scenarios times.
let lookupsPerRound = 1_000

/// Scopes as an app names them: one per screen or list cell.
func scopeNames(_ count: Int) -> [String] {
    (0..<count).map { "screen-\($0)" }
}

/// The app bus container (issue 35): scopes created and released, and the lookup of a scope that
/// exists.
///
/// - `container/N scopes created and released`: `bus(for:)` of N new scopes, then `release` of each,
///   on one container; `created and released, per scope` divides the thread's CPU time by N (CPU
///   time, which other processes' load does not inflate), and stays flat when the time grows
///   linearly. (The container used to copy its whole registry for each change: N² time.)
/// - `container/bus(for:) of an existing scope, N scopes`: 1,000 lookups of scopes that exist, on
///   the main actor, among N; the report divides. The read-only path every subscription through a
///   container takes.
/// - `…, 2 threads`: the same lookups on two threads at once (both cores), for what they cost each
///   other.
func registerContainerBenchmarks() {
    let perScope = BenchmarkMetric.custom("created and released, per scope (ns of CPU)", useScalingFactor: false)
    for scopes in containerScopeCounts {
        Benchmark(
            "container/\(scopes.grouped) scopes created and released/AppEventBusContainer",
            configuration: .init(
                metrics: [.wallClock, perScope], warmupIterations: 1, maxDuration: .seconds(5),
                maxIterations: 20)
        ) { benchmark in
            let names = scopeNames(scopes)
            for _ in benchmark.scaledIterations {
                let container = AppEventBusContainer<String>()
                let start = threadCPUNanoseconds()
                benchmark.startMeasurement()
                for name in names { blackHole(container.bus(for: name)) }
                for name in names { container.release(name) }
                benchmark.stopMeasurement()
                benchmark.measurement(perScope, (threadCPUNanoseconds() - start) / scopes)
                precondition(container.scopes.isEmpty, "every scope was released")
            }
        }
    }

    for scopes in [1, 1_000] {
        Benchmark(
            "container/bus(for:) of an existing scope, \(scopes.grouped) scopes/AppEventBusContainer",
            configuration: .init(metrics: [.wallClock, .mallocCountTotal])
        ) { benchmark in
            let names = scopeNames(scopes)
            let container = AppEventBusContainer<String>()
            for name in names { _ = container.bus(for: name) }
            benchmark.startMeasurement()
            for _ in benchmark.scaledIterations {
                for lookup in 0..<lookupsPerRound { blackHole(container.bus(for: names[lookup % scopes])) }
            }
            benchmark.stopMeasurement()
        }
    }

    Benchmark(
        "container/bus(for:) of an existing scope, 1,000 scopes, 2 threads/AppEventBusContainer",
        configuration: .init(metrics: [.wallClock, .mallocCountTotal])
    ) { benchmark in
        let names = scopeNames(1_000)
        let container = AppEventBusContainer<String>()
        for name in names { _ = container.bus(for: name) }
        let iterations = benchmark.scaledIterations.count
        // The second thread starts each round's lookups with the first, and the first waits for it.
        let start = DispatchSemaphore(value: 0)
        let done = DispatchSemaphore(value: 0)
        let helper = Thread {
            for _ in 0..<iterations {
                start.wait()
                for lookup in 0..<lookupsPerRound {
                    blackHole(container.bus(for: names[(lookup + 500) % names.count]))
                }
                done.signal()
            }
        }
        helper.start()
        benchmark.startMeasurement()
        for _ in 0..<iterations {
            start.signal()
            for lookup in 0..<lookupsPerRound { blackHole(container.bus(for: names[lookup % names.count])) }
            done.wait()
        }
        benchmark.stopMeasurement()
    }
}

/// The CPU time of the calling thread.
func threadCPUNanoseconds() -> Int {
    var time = timespec()
    clock_gettime(CLOCK_THREAD_CPUTIME_ID, &time)
    return time.tv_sec * 1_000_000_000 + time.tv_nsec
}
