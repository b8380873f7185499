import SDKEventBus

/// This package: fires queue under a lock and share one main-actor hop.
@MainActor
final class SDKEventBusPeer: DeliveryPeer {
    nonisolated static let name = "SDKEventBus"
    let bus: EventBus
    let emitter: EventEmitter

    init(listeners: Int, sink: Sink) async {
        (bus, emitter) = EventBus.makeBus()
        for _ in 0..<listeners {
            _ = bus.on(.bucketing, callback: callback(for: sink))
        }
    }

    // Synchronous: `fire` never suspends, so the caller-side scenario times only the fire.
    func fire(_ payload: EventPayloadValue) {
        emitter.fire(payload)
    }
}

struct SDKEventBusSubscriptionPeer: SubscriptionPeer {
    static let name = "SDKEventBus"
    let bus: EventBus

    init(liveListeners: Int) async {
        bus = EventBus.makeBus().bus
        for index in 0..<liveListeners {
            _ = bus.on(SystemEvent.allCases[index % 10]) { _ in }
        }
    }

    func subscribeAndUnsubscribe() async {
        let token = bus.on(.bucketing) { _ in }
        await bus.off(token)
    }
}
