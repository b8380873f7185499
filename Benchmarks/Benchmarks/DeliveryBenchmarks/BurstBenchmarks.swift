import Benchmark
import Dispatch
import SDKEventBus

/// The burst of issue 23: how long a burst of fires from a background task holds the main thread.
///
/// 20,000 fires from a detached task to 100 main-actor listeners (2,000,000 callbacks). A
/// main-queue timer ticks every 0.5 ms meanwhile; the longest time between two ticks is the
/// longest the main thread was not free for the app (about 0.5 ms idle). Wall clock is the total:
/// from the first fire until every callback has run.
///
/// The timer is a proxy: its ticks are pushed by libdispatch's timer thread, which on a machine
/// with two busy cores may be late, so two short jobs back to back can show as one longer gap.
/// The `heartbeat` variant measures the jobs themselves: a main-queue item that enqueues itself
/// again each time it runs, so the longest time between two of its runs is the longest stretch of
/// other main-queue work (the bus's jobs). It keeps the main thread busy, so its total is not
/// comparable with the timer variant's.
func registerBurstBenchmarks() {
    let fires = 20_000
    let listeners = 100
    let longestGap = BenchmarkMetric.custom("longest main-queue gap (µs)", useScalingFactor: false)
    Benchmark(
        "burst/20,000 fires → 100 main-actor listeners/SDKEventBus",
        configuration: .init(
            metrics: [.wallClock, longestGap], timeUnits: .microseconds, warmupIterations: 2,
            maxDuration: .seconds(10), maxIterations: 30)
    ) { @MainActor benchmark in
        let (bus, emitter) = EventBus.makeBus()
        let counter = CallbackCounter()
        for _ in 0..<listeners { _ = bus.on(.bucketing) { _ in counter.count += 1 } }
        let meter = MainQueueGapMeter()
        for _ in benchmark.scaledIterations {
            meter.start()
            benchmark.startMeasurement()
            await Task.detached { for _ in 0..<fires { emitter.fire(payload) } }.value
            await bus.flush()
            benchmark.stopMeasurement()
            benchmark.measurement(longestGap, meter.stop() / 1_000)
        }
        precondition(counter.count == fires * listeners * benchmark.scaledIterations.count)
        emitter.shutdown()
    }
    Benchmark(
        "burst/20,000 fires → 100 main-actor listeners, heartbeat/SDKEventBus",
        configuration: .init(
            metrics: [.wallClock, longestGap], timeUnits: .microseconds, warmupIterations: 2,
            maxDuration: .seconds(10), maxIterations: 30)
    ) { @MainActor benchmark in
        let (bus, emitter) = EventBus.makeBus()
        for _ in 0..<listeners { _ = bus.on(.bucketing) { _ in } }
        let heartbeat = MainQueueHeartbeat()
        for _ in benchmark.scaledIterations {
            heartbeat.start()
            benchmark.startMeasurement()
            await Task.detached { for _ in 0..<fires { emitter.fire(payload) } }.value
            await bus.flush()
            benchmark.stopMeasurement()
            benchmark.measurement(longestGap, heartbeat.stop() / 1_000)
        }
        emitter.shutdown()
    }
}

/// A main-queue item that enqueues itself again each time it runs, and records the longest time
/// between two of its runs: the longest stretch of other work on the main queue.
@MainActor
final class MainQueueHeartbeat {
    private var isRunning = false
    private var last: UInt64 = 0
    private var longest: UInt64 = 0

    func start() {
        longest = 0
        last = DispatchTime.now().uptimeNanoseconds
        isRunning = true
        beat()
    }

    private func beat() {
        let now = DispatchTime.now().uptimeNanoseconds
        longest = max(longest, now - last)
        last = now
        guard isRunning else { return }
        DispatchQueue.main.async { MainActor.assumeIsolated { self.beat() } }
    }

    /// Stops the heartbeat, and returns the longest gap in nanoseconds.
    func stop() -> Int {
        isRunning = false
        return Int(longest)
    }
}

/// Counts callbacks on the main actor.
@MainActor
final class CallbackCounter {
    var count = 0
}

/// A main-queue timer ticking every 0.5 ms that records the longest time between two ticks.
@MainActor
final class MainQueueGapMeter {
    private var timer: (any DispatchSourceTimer)?
    private var last: UInt64 = 0
    private var longest: UInt64 = 0

    func start() {
        longest = 0
        last = DispatchTime.now().uptimeNanoseconds
        let timer = DispatchSource.makeTimerSource(flags: .strict, queue: .main)
        timer.schedule(deadline: .now(), repeating: .microseconds(500), leeway: .nanoseconds(0))
        timer.setEventHandler { [unowned self] in
            MainActor.assumeIsolated { self.tick() }
        }
        timer.activate()
        self.timer = timer
    }

    private func tick() {
        let now = DispatchTime.now().uptimeNanoseconds
        longest = max(longest, now - last)
        last = now
    }

    /// Stops the timer, and returns the longest gap in nanoseconds, the last stretch included.
    func stop() -> Int {
        tick()
        timer?.cancel()
        timer = nil
        return Int(longest)
    }
}
