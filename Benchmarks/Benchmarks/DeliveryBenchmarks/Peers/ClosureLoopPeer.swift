import SDKEventBus

/// The floor: a bare array of closures called in a loop, inline, on the main actor.
@MainActor
final class ClosureLoopPeer: DeliveryPeer {
    nonisolated static let name = "bare closure loop (floor)"
    var callbacks: [@MainActor @Sendable (EventPayloadValue) -> Void] = []

    init(listeners: Int, sink: Sink) async {
        callbacks = (0..<listeners).map { _ in callback(for: sink) }
    }

    func fire(_ payload: EventPayloadValue) async {
        for callback in callbacks {
            callback(payload)
        }
    }
}
