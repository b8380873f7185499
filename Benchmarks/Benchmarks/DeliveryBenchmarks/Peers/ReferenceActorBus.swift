import Foundation
import SDKEventBus

/// The reference design: an actor holding `[event: [token: callback]]` that starts one
/// `Task { @MainActor in … }` per callback.
actor ReferenceActorBus {
    typealias Callback = @MainActor @Sendable (EventPayloadValue) -> Void
    private var handlers: [SystemEvent: [UUID: Callback]] = [:]

    func on(_ event: SystemEvent, callback: @escaping Callback) -> UUID {
        let token = UUID()
        handlers[event, default: [:]][token] = callback
        return token
    }

    func off(_ token: UUID) {
        for event in handlers.keys {
            handlers[event]?[token] = nil
        }
    }

    func fire(_ payload: EventPayloadValue) {
        for callback in handlers[payload.event]?.values ?? [:].values {
            Task { @MainActor in callback(payload) }
        }
    }
}

@MainActor
final class ReferenceActorPeer: DeliveryPeer {
    nonisolated static let name = "reference actor + Task per callback"
    let bus = ReferenceActorBus()

    init(listeners: Int, sink: Sink) async {
        for _ in 0..<listeners {
            _ = await bus.on(.bucketing, callback: callback(for: sink))
        }
    }

    func fire(_ payload: EventPayloadValue) async {
        await bus.fire(payload)
    }
}

struct ReferenceActorSubscriptionPeer: SubscriptionPeer {
    static let name = "reference actor + Task per callback"
    let bus = ReferenceActorBus()

    init(liveListeners: Int) async {
        for index in 0..<liveListeners {
            _ = await bus.on(SystemEvent.allCases[index % 10]) { _ in }
        }
    }

    func subscribeAndUnsubscribe() async {
        let token = await bus.on(.bucketing) { _ in }
        await bus.off(token)
    }
}
