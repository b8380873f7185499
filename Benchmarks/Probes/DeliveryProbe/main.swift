// Times the end-to-end delivery loop without the benchmark harness, for profiling.
import SDKEventBus

#if canImport(Glibc)
    import Glibc
#endif

@MainActor
final class Sink {
    var received = 0
    var remaining = 0
    var waiter: CheckedContinuation<Void, Never>?
    func receive(_ payload: EventPayloadValue) {
        received &+= 1
        remaining -= 1
        if remaining == 0, let waiter {
            self.waiter = nil
            waiter.resume()
        }
    }
}

if CommandLine.arguments.dropFirst().first == "subscribe" {
    // `DeliveryProbe subscribe [pairs]`: on + off pairs with 10,000 other live listeners, in rounds.
    let pairs = Int(CommandLine.arguments.dropFirst(2).first ?? "100000") ?? 100_000
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

let listeners = Int(CommandLine.arguments.dropFirst().first ?? "100") ?? 100
let iterations = Int(CommandLine.arguments.dropFirst(2).first ?? "20000") ?? 20_000
/// How many fires share one wait for delivery: 1 measures latency, more measures sustained cost.
let firesPerWait = Int(CommandLine.arguments.dropFirst(3).first ?? "1") ?? 1
let payload = EventPayloadValue.bucketing(BucketingPayload(experienceId: "e", variationId: "v", visitorId: "u"))
let sink = Sink()
let (bus, emitter) = EventBus.makeBus()
for _ in 0..<listeners { _ = bus.on(.bucketing) { sink.receive($0) } }
let clock = ContinuousClock()
let start = clock.now
for _ in 0..<iterations {
    sink.remaining = listeners * firesPerWait
    for _ in 0..<firesPerWait { emitter.fire(payload) }
    await withCheckedContinuation { sink.waiter = $0 }
}
let elapsed = clock.now - start
let perFire = elapsed / (iterations * firesPerWait)
print("\(listeners) listeners, \(firesPerWait) fire(s) per wait: \(perFire) per fire; received \(sink.received)")
