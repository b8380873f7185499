// Times the end-to-end delivery loop without the benchmark harness, for profiling.
//
//     DeliveryProbe [mode] [listeners] [rounds] [fires per wait]
//     DeliveryProbe subscribe [pairs]
//     DeliveryProbe teardown [kinds] [owners] [repeats]
//     DeliveryProbe decode [keys] [rounds]
//     DeliveryProbe burst|burst-mix|burst-immediate [runs]
//     DeliveryProbe container [scopes…]
//     DeliveryProbe container-lookup [scopes] [lookups] [threads]
//
// Modes: `main` (the default: the built-in catalog, main-actor listeners), `external` (the
// `FlagEvent` catalog of another module), `immediate` (listeners on the firing thread), `actor`
// (listeners isolated to one actor; `app-actor` on the app bus), `once` (one fire to `once` listeners subscribed afresh each
// round). `DeliveryProbe 100 20000 1` is `main` with those numbers.
//
// For a debug build (`swift build -c debug`, what an app's Debug configuration compiles a package
// as): `immediate`, `external-immediate` (the `FlagEvent` catalog, immediate listeners) and
// `typed-immediate` (firing the payload struct) against `lock-array`, the minimal bus an SDK would
// otherwise write (a lock, an array of closures per event, called after unlocking), compiled in the
// same build.
import FlagCatalog
import Foundation
import SDKEventBus
import SDKEventBusTimeline

#if canImport(Glibc)
    import Glibc
#endif

@MainActor
final class Sink {
    var received = 0
    var remaining = 0
    var waiter: CheckedContinuation<Void, Never>?
    func receive() {
        received &+= 1
        remaining -= 1
        if remaining == 0, let waiter {
            self.waiter = nil
            waiter.resume()
        }
    }
    func expect(_ count: Int) { remaining = count }
    func delivered() async {
        guard remaining > 0 else { return }
        await withCheckedContinuation { waiter = $0 }
    }
}

actor ActorSink {
    var received = 0
    var target = Int.max
    var waiter: CheckedContinuation<Void, Never>?
    func receive() {
        received &+= 1
        if received == target, let waiter {
            self.waiter = nil
            waiter.resume()
        }
    }
    func delivered(total: Int) async {
        guard received < total else { return }
        target = total
        await withCheckedContinuation { waiter = $0 }
    }
}

/// The CPU time of the calling thread.
nonisolated func threadCPUNanoseconds() -> Int {
    var time = timespec()
    clock_gettime(CLOCK_THREAD_CPUTIME_ID, &time)
    return time.tv_sec * 1_000_000_000 + time.tv_nsec
}

var arguments = Array(CommandLine.arguments.dropFirst())
let mode = arguments.first.flatMap { Int($0) == nil ? arguments.removeFirst() : nil } ?? "main"

if mode == "burst" || mode == "burst-mix" || mode == "burst-immediate" {
    // `DeliveryProbe burst [runs]`: 20,000 fires from a detached task to 100 main-actor listeners,
    // then `flush`; a main-queue item that enqueues itself again each time it runs records the
    // longest stretch of other main-queue work (the bus's longest job). `burst-mix [runs]`: one
    // fire from a detached task to 5,000 cheap main-actor listeners then 2,000 of 50 µs (busy).
    // `burst-immediate [runs]`: a main-thread fire of one event whose one immediate listener queues
    // 10 fires of another event behind it, to 5,000 cheap then 2,000 immediate listeners of 50 µs:
    // how long `fire` holds the main thread. Prints per run: the longest job and the total, in µs.
    let runs = Int(arguments.first ?? "10") ?? 10
    let spin: @Sendable (UInt64) -> Void = { nanoseconds in
        let start = DispatchTime.now().uptimeNanoseconds
        while DispatchTime.now().uptimeNanoseconds - start < nanoseconds {}
    }
    // The main thread's own CPU time: on a loaded machine the wall clock between two beats also
    // counts the time the thread was preempted, which no job of the bus spends.
    func threadCPU() -> UInt64 {
        var time = timespec()
        clock_gettime(CLOCK_THREAD_CPUTIME_ID, &time)
        return UInt64(time.tv_sec) * 1_000_000_000 + UInt64(time.tv_nsec)
    }
    @MainActor final class Heartbeat {
        var running = false
        var last: UInt64 = 0
        var lastCPU: UInt64 = 0
        var longest: UInt64 = 0
        var longestCPU: UInt64 = 0
        func start() {
            longest = 0
            longestCPU = 0
            last = DispatchTime.now().uptimeNanoseconds
            lastCPU = threadCPU()
            lastThread = pthread_self()
            running = true
            beat()
        }
        var lastThread = pthread_self()
        func beat() {
            let now = DispatchTime.now().uptimeNanoseconds
            let cpu = threadCPU()
            // Main-queue items may run on another thread after `dispatchMain()`: only a stretch
            // between two beats on one thread is that thread's own time.
            let thread = pthread_self()
            if pthread_equal(thread, lastThread) != 0, cpu >= lastCPU { longestCPU = max(longestCPU, cpu - lastCPU) }
            lastThread = thread
            longest = max(longest, now - last)
            last = now
            lastCPU = cpu
            guard running else { return }
            DispatchQueue.main.async { MainActor.assumeIsolated { self.beat() } }
        }
        func stop() -> UInt64 {
            running = false
            return longest
        }
    }
    let heartbeat = Heartbeat()
    let payload = EventPayloadValue.bucketing(BucketingPayload(experienceId: "e", variationId: "v", visitorId: "u"))
    var longestJobs: [Double] = []
    var longestCPUs: [Double] = []
    var totals: [Double] = []
    for _ in 0..<runs {
        let (bus, emitter) = EventBus.makeBus()
        let counter = Sink()
        let start: UInt64
        if mode == "burst-immediate" {
            for index in 0..<7_000 {
                let slow = index >= 5_000
                _ = bus.on(.bucketing, delivery: .immediate) { _ in if slow { spin(50_000) } }
            }
            _ = bus.on(.configUpdated, delivery: .immediate) { _ in for _ in 0..<10 { emitter.fire(payload) } }
            start = DispatchTime.now().uptimeNanoseconds
            let startCPU = threadCPU()
            emitter.fire(.configUpdated(ConfigUpdatedPayload(snapshot: nil)))
            longestJobs.append(Double(DispatchTime.now().uptimeNanoseconds - start) / 1_000)
            longestCPUs.append(Double(threadCPU() - startCPU) / 1_000)
            await bus.flush()
        } else {
            let mix = mode == "burst-mix"
            for index in 0..<(mix ? 7_000 : 100) {
                let slow = mix && index >= 5_000
                _ = bus.on(.bucketing) { _ in
                    counter.received &+= 1
                    if slow { spin(50_000) }
                }
            }
            heartbeat.start()
            start = DispatchTime.now().uptimeNanoseconds
            let fires = mix ? 1 : 20_000
            await Task.detached { for _ in 0..<fires { emitter.fire(payload) } }.value
            await bus.flush()
            longestJobs.append(Double(heartbeat.stop()) / 1_000)
            longestCPUs.append(Double(heartbeat.longestCPU) / 1_000)
        }
        totals.append(Double(DispatchTime.now().uptimeNanoseconds - start) / 1_000)
        emitter.shutdown()
    }
    let sorted = longestJobs.sorted()
    let sortedCPU = longestCPUs.sorted()
    print(
        "\(mode): longest job, main thread's CPU µs per run: \(longestCPUs.map { Int($0) }); median \(Int(sortedCPU[sortedCPU.count / 2])), max \(Int(sortedCPU.last!))"
    )
    print(
        "\(mode): longest job µs per run: \(longestJobs.map { Int($0) }); median \(Int(sorted[sorted.count / 2])), max \(Int(sorted.last!)); total µs median \(Int(totals.sorted()[totals.count / 2]))"
    )
    exit(0)
}

if mode == "subscribe" {
    // `DeliveryProbe subscribe [pairs]`: on + off pairs with 10,000 other live listeners, in rounds.
    let pairs = Int(arguments.first ?? "100000") ?? 100_000
    let (bus, _) = EventBus.makeBus()
    for index in 0..<10_000 { _ = bus.on(SystemEvent.allCases[index % 10]) { _ in } }
    let clock = ContinuousClock()
    for round in 0..<10 {
        let start = clock.now
        for _ in 0..<pairs {
            let token = bus.on(.bucketing) { _ in }
            await bus.off(token)
        }
        print("round \(round): \((clock.now - start) / pairs) per pair")
    }
    exit(0)
}

if mode == "teardown" {
    // `DeliveryProbe teardown [kinds] [owners] [repeats]`: `cancelAll(ownedBy:)` of 1,000 to 8,000
    // owners (or `owners`), each with the subscriptions `kinds` names (`m`: bound to it on the main
    // actor, `a`: isolated to it; the default `mma` is the benchmark's), best of 5 (or `repeats`)
    // per owner, and per eighth of the owners in turn.
    actor Owner {
        func receive() {}
    }
    let kinds = Array(arguments.first ?? "mma")
    let clock = ContinuousClock()
    let counts = arguments.dropFirst().first.flatMap { Int($0) }.map { [$0] } ?? [1_000, 2_000, 4_000, 8_000]
    let repeats = arguments.dropFirst(2).first.flatMap { Int($0) } ?? 5
    for owners in counts {
        var best = Duration.seconds(1_000)
        var eighths: [Duration] = []
        for _ in 0..<repeats {
            let (bus, _) = EventBus.makeBus()
            let owned = (0..<owners).map { _ in Owner() }
            for owner in owned {
                for (index, kind) in kinds.enumerated() {
                    let event = SystemEvent.allCases[index % 10]
                    if kind == "a" {
                        bus.on(event, delivery: .isolated(to: owner)) { owner, _ in owner.receive() }
                    } else {
                        bus.on(event, owner: owner) { _, _ in }
                    }
                }
            }
            var parts: [Duration] = []
            let start = clock.now
            for part in 0..<8 {
                let partStart = clock.now
                for owner in owned[(part * owners / 8)..<((part + 1) * owners / 8)] { bus.cancelAll(ownedBy: owner) }
                parts.append(clock.now - partStart)
            }
            let elapsed = clock.now - start
            if elapsed < best {
                best = elapsed
                eighths = parts
            }
            await bus.flush()
        }
        let perEighth = eighths.map { "\($0 / (owners / 8))" }.joined(separator: " ")
        print("teardown \(String(kinds)): \(owners) owners: \(best / owners) per owner; per eighth: \(perEighth)")
    }
    exit(0)
}

if mode == "container" || mode == "container-lookup" {
    // `DeliveryProbe container [scopes…]`: `bus(for:)` of N new scopes ("screen-0", …) on one
    // container, then `release` of each, for 5,000 to 40,000 scopes (or those given), best of 5 by
    // the thread's CPU time, which another process's load does not inflate; beside it, the same
    // buses made and ended without a container.
    // `DeliveryProbe container-lookup [scopes] [lookups] [threads]`: `bus(for:)` of scopes that
    // exist, among 1,000 (or `scopes`), 1,000,000 lookups (or `lookups`) per round, median of 7
    // rounds of the thread's CPU time per lookup; with 2 threads, each does the lookups at once.
    let clock = ContinuousClock()
    if mode == "container" {
        let counts = arguments.compactMap { Int($0) }
        for scopes in counts.isEmpty ? [5_000, 10_000, 20_000, 40_000] : counts {
            let names = (0..<scopes).map { "screen-\($0)" }
            var best = (cpu: Int.max, wall: Duration.seconds(1_000))
            for _ in 0..<5 {
                let container = AppEventBusContainer<String>()
                let cpu = threadCPUNanoseconds()
                let start = clock.now
                for name in names { _ = container.bus(for: name) }
                for name in names { container.release(name) }
                let elapsed = (cpu: threadCPUNanoseconds() - cpu, wall: clock.now - start)
                if elapsed.cpu < best.cpu { best = elapsed }
            }
            // The same buses without a container: made into an array, then each `cancelAll()`ed and
            // let go, as `release` does. What the container adds is the difference.
            var plain = Int.max
            for _ in 0..<5 {
                let cpu = threadCPUNanoseconds()
                var buses: [AppEventBus] = []
                for name in names { buses.append(AppEventBus(name: name)) }
                for bus in buses { bus.cancelAll() }
                buses.removeAll()
                plain = min(plain, threadCPUNanoseconds() - cpu)
            }
            print(
                "container: \(scopes) scopes created and released: \(best.cpu / 1_000_000) ms of CPU "
                    + "(\(best.cpu / scopes) ns per scope; the buses alone \(plain / scopes) ns), \(best.wall) wall")
        }
    } else {
        let scopes = Int(arguments.first ?? "1000") ?? 1_000
        let lookups = Int(arguments.dropFirst().first ?? "1000000") ?? 1_000_000
        let threads = Int(arguments.dropFirst(2).first ?? "1") ?? 1
        let names = (0..<scopes).map { "screen-\($0)" }
        let container = AppEventBusContainer<String>()
        for name in names { _ = container.bus(for: name) }
        @Sendable func round(offset: Int) -> Int {
            let cpu = threadCPUNanoseconds()
            var found = 0
            for lookup in 0..<lookups {
                found &+= container.bus(for: names[(lookup &+ offset) % scopes]) === nil ? 0 : 1
            }
            precondition(found == lookups)
            return threadCPUNanoseconds() - cpu
        }
        var perLookup: [Double] = []
        for _ in 0..<7 {
            if threads == 1 {
                perLookup.append(Double(round(offset: 0)) / Double(lookups))
            } else {
                let others = (1..<threads).map { thread in
                    Task.detached { round(offset: thread * scopes / threads) }
                }
                let own = round(offset: 0)
                var total = own
                for other in others { total += await other.value }
                perLookup.append(Double(total) / Double(lookups * threads))
            }
        }
        let median = perLookup.sorted()[perLookup.count / 2]
        print(
            "container-lookup: \(scopes) scopes, \(threads) thread(s): \(String(format: "%.1f", median)) ns "
                + "of CPU per lookup (median of 7 rounds of \(lookups))")
    }
    exit(0)
}

if mode == "decode" {
    // `DeliveryProbe decode [keys] [rounds]`: `ProjectConfig(jsonData:)` of a configuration with an
    // extra object of that many keys, as the decoding benchmarks do; no thread but this one, so
    // that callgrind can count its instructions.
    let keys = Int(arguments.first ?? "10000") ?? 10_000
    let rounds = Int(arguments.dropFirst().first ?? "20") ?? 20
    let extra = "{" + (0..<keys).map { #""k\#($0)":\#($0)"# }.joined(separator: ",") + "}"
    let body = Data(
        (#"{"account_id":"1","project":{"id":"1","name":"n"},"experiences":[],"extra":"# + extra + "}").utf8)
    let clock = ContinuousClock()
    let start = clock.now
    for _ in 0..<rounds { _ = try ProjectConfig(jsonData: body) }
    print("decode: \(keys) keys: \((clock.now - start) / rounds) per body")
    exit(0)
}

let listeners = Int(arguments.first ?? "100") ?? 100
let iterations = Int(arguments.dropFirst().first ?? "20000") ?? 20_000
/// How many fires share one wait for delivery: 1 measures latency, more measures sustained cost.
let firesPerWait = Int(arguments.dropFirst(2).first ?? "1") ?? 1
let payload = EventPayloadValue.bucketing(BucketingPayload(experienceId: "e", variationId: "v", visitorId: "u"))
let flagPayload = FlagEventPayload.flagEvaluated(FlagEvaluation(flagKey: "e", variationKey: "v", userId: "u"))
let sink = Sink()
let actorSink = ActorSink()
let (bus, emitter) = EventBus.makeBus()
let (flagBus, flagEmitter) = CatalogBus<FlagEvent>.makeBus()
let appBus = AppEventBus()
// `SDKEVENTBUS_TIMELINE=1`: the bus's timeline records throughout (a ring of 10,000), for its cost
// per fire and per delivery against the same run without it.
if ProcessInfo.processInfo.environment["SDKEVENTBUS_TIMELINE"] == "1" {
    bus.timeline.start()
    flagBus.timeline.start()
}

struct Bucketed: AppEvent {
    let payload: EventPayloadValue
}

/// The lock-guarded, type-keyed app bus people write: snapshot under the lock, cast per handler.
final class TypeKeyedBus: @unchecked Sendable {
    private let lock = NSLock()
    private var handlers: [ObjectIdentifier: [UInt64: @Sendable (any AppEvent) -> Void]] = [:]
    private var next: UInt64 = 0
    let onMainActor: Bool
    init(onMainActor: Bool) { self.onMainActor = onMainActor }
    func subscribe<Event: AppEvent>(to type: Event.Type, handler: @escaping @Sendable (Event) -> Void) {
        lock.withLock {
            next += 1
            handlers[ObjectIdentifier(type), default: [:]][next] = { if let event = $0 as? Event { handler(event) } }
        }
    }
    func publish<Event: AppEvent>(_ event: Event) {
        let snapshot = lock.withLock { Array(handlers[ObjectIdentifier(Event.self)]?.values ?? [:].values) }
        for handler in snapshot {
            if onMainActor { Task { @MainActor in handler(event) } } else { handler(event) }
        }
    }
}
/// The least an SDK would write: a lock and an array of closures per event; `fire` takes the array
/// under the lock and calls it after unlocking, on the firing thread.
final class LockAndArrayBus: @unchecked Sendable {
    // @unchecked: `callbacks` is only touched while holding `lock`.
    private let lock = NSLock()
    private var callbacks: [[@Sendable (EventPayloadValue) -> Void]] = Array(repeating: [], count: 10)
    func on(_ event: SystemEvent, _ callback: @escaping @Sendable (EventPayloadValue) -> Void) {
        let position = SystemEvent.allCases.firstIndex(of: event)!
        lock.withLock { callbacks[position].append(callback) }
    }
    func fire(_ position: Int, _ payload: EventPayloadValue) {
        let snapshot = lock.withLock { callbacks[position] }
        for callback in snapshot { callback(payload) }
    }
}
let fire: @MainActor () -> Void
switch mode {
case "main", "once":
    if mode == "main" { for _ in 0..<listeners { _ = bus.on(.bucketing) { _ in sink.receive() } } }
    fire = { emitter.fire(payload) }
case "external":
    for _ in 0..<listeners { _ = flagBus.on(.flagEvaluated) { _ in sink.receive() } }
    fire = { flagEmitter.fire(flagPayload) }
case "immediate":
    // Fired from the main actor, so the callbacks run there.
    let receive = unsafeBitCast({ @MainActor in sink.receive() }, to: (@Sendable () -> Void).self)
    for _ in 0..<listeners { _ = bus.on(.bucketing, delivery: .immediate) { _ in receive() } }
    fire = { emitter.fire(payload) }
case "external-immediate":
    let receive = unsafeBitCast({ @MainActor in sink.receive() }, to: (@Sendable () -> Void).self)
    for _ in 0..<listeners { _ = flagBus.on(.flagEvaluated, delivery: .immediate) { _ in receive() } }
    fire = { flagEmitter.fire(flagPayload) }
case "typed-immediate":
    let receive = unsafeBitCast({ @MainActor in sink.receive() }, to: (@Sendable () -> Void).self)
    let bucketing = BucketingPayload(experienceId: "e", variationId: "v", visitorId: "u")
    for _ in 0..<listeners { _ = bus.on(.bucketing, delivery: .immediate) { _ in receive() } }
    fire = { emitter.fire(bucketing) }
case "lock-array":
    let receive = unsafeBitCast({ @MainActor in sink.receive() }, to: (@Sendable () -> Void).self)
    let locked = LockAndArrayBus()
    let position = SystemEvent.allCases.firstIndex(of: .bucketing)!
    for _ in 0..<listeners { locked.on(.bucketing) { _ in receive() } }
    fire = { locked.fire(position, payload) }
case "actor":
    for _ in 0..<listeners { bus.on(.bucketing, delivery: .isolated(to: actorSink)) { sink, _ in sink.receive() } }
    fire = { emitter.fire(payload) }
case "app-actor":
    for _ in 0..<listeners {
        appBus.on(Bucketed.self, delivery: .isolated(to: actorSink)) { sink, _ in sink.receive() }
    }
    fire = { appBus.publish(Bucketed(payload: payload), source: "probe") }
case "app-immediate":
    let receive = unsafeBitCast({ @MainActor in sink.receive() }, to: (@Sendable () -> Void).self)
    for _ in 0..<listeners { appBus.on(Bucketed.self, delivery: .immediate) { _ in receive() } }
    fire = { appBus.publish(Bucketed(payload: payload), source: "probe") }
case "app-main":
    for _ in 0..<listeners { appBus.on(Bucketed.self) { _ in sink.receive() } }
    fire = { appBus.publish(Bucketed(payload: payload), source: "probe") }
case "app-locked", "app-task":
    let locked = TypeKeyedBus(onMainActor: mode == "app-task")
    let receive = unsafeBitCast({ @MainActor in sink.receive() }, to: (@Sendable () -> Void).self)
    for _ in 0..<listeners { locked.subscribe(to: Bucketed.self) { _ in receive() } }
    fire = { locked.publish(Bucketed(payload: payload)) }
default:
    print("unknown mode \(mode)")
    exit(2)
}

let clock = ContinuousClock()
var elapsed = Duration.zero
var total = 0
for _ in 0..<iterations {
    if mode == "once" { for _ in 0..<listeners { bus.once(.bucketing) { _ in sink.receive() } } }
    let start = clock.now
    total += listeners * firesPerWait
    if mode == "actor" || mode == "app-actor" {
        for _ in 0..<firesPerWait { fire() }
        await actorSink.delivered(total: total)
    } else {
        sink.expect(listeners * firesPerWait)
        for _ in 0..<firesPerWait { fire() }
        await sink.delivered()
    }
    elapsed += clock.now - start
}
let perFire = elapsed / (iterations * firesPerWait)
let received = mode == "actor" || mode == "app-actor" ? await actorSink.received : sink.received
print("\(mode): \(listeners) listeners, \(firesPerWait) fire(s) per wait: \(perFire) per fire; received \(received)")
