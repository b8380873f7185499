// Fire → delivery across the package's module boundary, built two ways by
// Scripts/library-evolution-benchmark.sh: against the library-evolution build's interfaces (as a
// binary SDK ships the package) and against a plain release build's modules. Prints nanoseconds
// per event for each scenario; the script compares the two builds in the same run.
//
// `immediate`, `immediate-local` and `actor` fire the built-in catalog, which the client sees
// through the package's interface; `own-immediate` fires a catalog declared here, as a binary SDK
// declares its own; `typed-immediate` fires a payload struct. `on-off` and `on-off-immediate`
// subscribe and unsubscribe (nanoseconds per pair), with 1,000 other listeners live: the inlinable
// verbs of Docs/ABI.md, each scenario one of them.

import Dispatch
import SDKEventBus

/// A count callbacks on one thread add to, read after the run.
final class Count: @unchecked Sendable {
    // @unchecked: written only by the delivering thread while the run lasts, read after it.
    var value = 0
}

let payload = SystemEvent.Payload.bucketing(
    BucketingPayload(experienceId: "1", variationId: "2", visitorId: "visitor"))

func nanoseconds(_ body: () async -> Void) async -> UInt64 {
    let start = DispatchTime.now().uptimeNanoseconds
    await body()
    return DispatchTime.now().uptimeNanoseconds - start
}

/// Fire on the caller's thread to one immediate listener: the engine's synchronous path.
func immediate(events: Int) async -> Double {
    let (bus, emitter) = EventBus.makeBus()
    let count = Count()
    let subscription = bus.on(.bucketing, delivery: .immediate) { _ in count.value += 1 }
    let time = await nanoseconds {
        for _ in 0..<events { emitter.fire(payload) }
    }
    precondition(count.value == events)
    subscription.cancel()
    return Double(time) / Double(events)
}

/// `immediate`, firing a payload made in the function rather than the global: a global of a type the
/// client sees as resilient is copied through its value witnesses at every fire, in the client, and
/// this scenario leaves that copy out.
func immediateLocal(events: Int) async -> Double {
    let (bus, emitter) = EventBus.makeBus()
    let payload = SystemEvent.Payload.bucketing(
        BucketingPayload(experienceId: "1", variationId: "2", visitorId: "visitor"))
    let count = Count()
    let subscription = bus.on(.bucketing, delivery: .immediate) { _ in count.value += 1 }
    let time = await nanoseconds {
        for _ in 0..<events { emitter.fire(payload) }
    }
    precondition(count.value == events)
    subscription.cancel()
    return Double(time) / Double(events)
}

/// Fire from a task to one listener on an actor, then wait for delivery.
actor Sink {
    var count = 0
    func add() { count += 1 }
}

func onActor(events: Int) async -> Double {
    let (bus, emitter) = EventBus.makeBus()
    let sink = Sink()
    let subscription = bus.on(.bucketing, delivery: .isolated(to: sink)) { sink, _ in sink.add() }
    let time = await nanoseconds {
        for _ in 0..<events { emitter.fire(payload) }
        await bus.flush()
    }
    let delivered = await sink.count
    precondition(delivered == events)
    subscription.cancel()
    return Double(time) / Double(events)
}

/// A catalog declared in the client, as a binary SDK declares its own: its types are the client's,
/// so their layout is known to it in both builds.
enum FlagEvent: String, EventCatalog {
    case initialized
    case flagsChanged = "flags.changed"
    case error

    typealias Payload = FlagEventPayload
}

enum FlagEventPayload: CatalogPayload {
    case initialized
    case flagsChanged(FlagsChangedPayload)
    case error(String)

    var event: FlagEvent {
        switch self {
        case .initialized: .initialized
        case .flagsChanged: .flagsChanged
        case .error: .error
        }
    }
}

struct FlagsChangedPayload: Sendable {
    var changedKeys: [String]
    var visitorId: String
}

let flagPayload = FlagEventPayload.flagsChanged(FlagsChangedPayload(changedKeys: ["a", "b"], visitorId: "visitor"))

/// `immediate`, with the client's own catalog.
func ownImmediate(events: Int) async -> Double {
    let (bus, emitter) = CatalogBus<FlagEvent>.makeBus()
    let count = Count()
    let subscription = bus.on(.flagsChanged, delivery: .immediate) { _ in count.value += 1 }
    let time = await nanoseconds {
        for _ in 0..<events { emitter.fire(flagPayload) }
    }
    precondition(count.value == events)
    subscription.cancel()
    return Double(time) / Double(events)
}

/// `immediate`, firing the payload struct: the typed `fire`, and the check it inlines.
func typedImmediate(events: Int) async -> Double {
    let (bus, emitter) = EventBus.makeBus()
    let typed = BucketingPayload(experienceId: "1", variationId: "2", visitorId: "visitor")
    let count = Count()
    let subscription = bus.on(.bucketing, delivery: .immediate) { _ in count.value += 1 }
    let time = await nanoseconds {
        for _ in 0..<events { emitter.fire(typed) }
    }
    precondition(count.value == events)
    subscription.cancel()
    return Double(time) / Double(events)
}

/// `on` (main actor) then `off`, `pairs` times, beside 1,000 live listeners: nothing is fired, so
/// `off` never waits for a pass.
func onOff(pairs: Int) async -> Double {
    let (bus, _) = EventBus.makeBus()
    let others = (0..<1_000).map { index in bus.on(SystemEvent.allCases[index % 10]) { _ in } }
    let time = await nanoseconds {
        for _ in 0..<pairs {
            let subscription = bus.on(.bucketing) { _ in }
            await bus.off(subscription)
        }
    }
    for other in others { other.cancel() }
    return Double(time) / Double(pairs)
}

/// `onOff`, with immediate listeners.
func onOffImmediate(pairs: Int) async -> Double {
    let (bus, _) = EventBus.makeBus()
    let others = (0..<1_000).map { index in bus.on(SystemEvent.allCases[index % 10], delivery: .immediate) { _ in } }
    let time = await nanoseconds {
        for _ in 0..<pairs {
            let subscription = bus.on(.bucketing, delivery: .immediate) { _ in }
            await bus.off(subscription)
        }
    }
    for other in others { other.cancel() }
    return Double(time) / Double(pairs)
}

let events = 200_000
_ = await immediate(events: events / 10)
_ = await onActor(events: events / 10)
_ = await ownImmediate(events: events / 10)
_ = await immediateLocal(events: events / 10)
_ = await typedImmediate(events: events / 10)
_ = await onOff(pairs: events / 10)
_ = await onOffImmediate(pairs: events / 10)
print("immediate \(await immediate(events: events))")
print("immediate-local \(await immediateLocal(events: events))")
print("actor \(await onActor(events: events))")
print("own-immediate \(await ownImmediate(events: events))")
print("typed-immediate \(await typedImmediate(events: events))")
print("on-off \(await onOff(pairs: events))")
print("on-off-immediate \(await onOffImmediate(pairs: events))")
