import Foundation
import SDKEventBus

/// The app event every app-bus peer publishes: a type of its own, as app code declares them.
struct BucketingHappened: AppEvent {
    let payload: EventPayloadValue
}

/// This package's app bus (`AppEventBus`), handlers on the publishing thread.
///
/// `subscribe(to:delivery: .immediate)`; its peer is "app: lock + snapshot by type, inline".
@MainActor
final class AppBusImmediatePeer: DeliveryPeer {
    nonisolated static let name = "app bus, immediate"
    let bus = AppEventBus()

    init(listeners: Int, sink: Sink) async {
        let receive = inlineCallback(for: sink)
        for _ in 0..<listeners {
            bus.on(BucketingHappened.self, delivery: .immediate) { receive($0.payload) }
        }
    }

    func fire(_ payload: EventPayloadValue) {
        bus.publish(BucketingHappened(payload: payload), source: "benchmark")
    }
}

/// This package's app bus, handlers on the main actor (the default).
///
/// Its peer is "app: lock + Task per callback".
@MainActor
final class AppBusMainActorPeer: DeliveryPeer {
    nonisolated static let name = "app bus, main actor"
    let bus = AppEventBus()

    init(listeners: Int, sink: Sink) async {
        for _ in 0..<listeners {
            bus.on(BucketingHappened.self) { sink.receive($0.payload) }
        }
    }

    func fire(_ payload: EventPayloadValue) {
        bus.publish(BucketingHappened(payload: payload), source: "benchmark")
    }
}

/// The app-level bus teams write: a lock-guarded dictionary of handlers keyed by event type.
///
/// It snapshots the handlers under the lock, and each handler casts the event back to its type.
/// Handlers run either inline on the publisher's thread or in one `Task { @MainActor in … }` each.
final class TypeKeyedLockedBus: @unchecked Sendable {
    // @unchecked: `handlers` and `nextToken` are only touched while holding `lock`.
    typealias Handler = @Sendable (any AppEvent) -> Void
    private let lock = NSLock()
    private var handlers: [ObjectIdentifier: [UInt64: Handler]] = [:]
    private var nextToken: UInt64 = 0
    let onMainActor: Bool

    init(onMainActor: Bool) {
        self.onMainActor = onMainActor
    }

    func subscribe<Event: AppEvent>(to type: Event.Type, handler: @escaping @Sendable (Event) -> Void) -> UInt64 {
        lock.withLock {
            nextToken += 1
            handlers[ObjectIdentifier(type), default: [:]][nextToken] = { event in
                if let event = event as? Event { handler(event) }
            }
            return nextToken
        }
    }

    func publish<Event: AppEvent>(_ event: Event) {
        let snapshot = lock.withLock { Array(handlers[ObjectIdentifier(Event.self)]?.values ?? [:].values) }
        for handler in snapshot {
            if onMainActor {
                Task { @MainActor in handler(event) }
            } else {
                handler(event)
            }
        }
    }
}

@MainActor
final class TypeKeyedLockedBusPeer: DeliveryPeer {
    nonisolated static let name = "app: lock + snapshot by type, inline"
    let bus = TypeKeyedLockedBus(onMainActor: false)

    init(listeners: Int, sink: Sink) async {
        let receive = inlineCallback(for: sink)
        for _ in 0..<listeners {
            _ = bus.subscribe(to: BucketingHappened.self) { receive($0.payload) }
        }
    }

    func fire(_ payload: EventPayloadValue) {
        bus.publish(BucketingHappened(payload: payload))
    }
}

@MainActor
final class TypeKeyedTaskPerCallbackPeer: DeliveryPeer {
    nonisolated static let name = "app: lock + Task per callback"
    let bus = TypeKeyedLockedBus(onMainActor: true)

    init(listeners: Int, sink: Sink) async {
        let receive = inlineCallback(for: sink)
        for _ in 0..<listeners {
            // Runs in a main-actor task: the cast only drops the isolation the task provides.
            _ = bus.subscribe(to: BucketingHappened.self) { receive($0.payload) }
        }
    }

    func fire(_ payload: EventPayloadValue) {
        bus.publish(BucketingHappened(payload: payload))
    }
}

/// This package's app bus, handlers isolated to one custom actor (`delivery: .isolated(to:)`): the
/// app bus's counterpart of the catalog bus in the actor-delivery scenarios.
@MainActor
final class AppBusActorPeer: ActorDeliveryPeer {
    nonisolated static let name = "app bus"
    let bus = AppEventBus()

    init(listeners: Int, sink: ActorSink) {
        for _ in 0..<listeners {
            bus.on(BucketingHappened.self, delivery: .isolated(to: sink)) { sink, event in sink.receive(event.payload) }
        }
    }

    func fire(_ payload: EventPayloadValue) {
        bus.publish(BucketingHappened(payload: payload), source: "benchmark")
    }
}
