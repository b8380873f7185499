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
            _ = await bus.on(.bucketing, callback: callback(for: sink))
        }
    }

    func fire(_ payload: EventPayloadValue) async {
        await emitter.fire(payload)
    }
}

struct SDKEventBusSubscriptionPeer: SubscriptionPeer {
    static let name = "SDKEventBus"
    let bus: EventBus

    init(liveListeners: Int) async {
        bus = EventBus.makeBus().bus
        for index in 0..<liveListeners {
            _ = await bus.on(SystemEvent.allCases[index % 10]) { _ in }
        }
    }

    func subscribeAndUnsubscribe() async {
        let token = await bus.on(.bucketing) { _ in }
        await bus.off(token)
    }
}
