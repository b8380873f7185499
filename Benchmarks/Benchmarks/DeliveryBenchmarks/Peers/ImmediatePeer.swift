import SDKEventBus

/// This package with immediate delivery (`on(_:delivery: .immediate)`).
///
/// Callbacks run on the firing thread before `fire` returns, for issue #14. Its peer is "lock +
/// snapshot, inline".
@MainActor
final class ImmediatePeer: DeliveryPeer {
    nonisolated static let name = "immediate"
    let bus: EventBus
    let emitter: EventEmitter

    init(listeners: Int, sink: Sink) async {
        (bus, emitter) = EventBus.makeBus()
        recordIfAsked(bus)
        for _ in 0..<listeners {
            _ = bus.on(.bucketing, delivery: .immediate, callback: inlineCallback(for: sink))
        }
    }

    func fire(_ payload: EventPayloadValue) {
        emitter.fire(payload)
    }
}
