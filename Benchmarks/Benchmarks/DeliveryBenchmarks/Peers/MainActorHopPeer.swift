import SDKEventBus

/// The floor for asynchronous delivery to the main actor: each fire is one bare main-actor hop
/// (`Task { @MainActor in … }`) that calls the listeners in a loop. No bus, no lock, no queue: what
/// any design that delivers later on the main actor pays at least once per fire, for the latency
/// scenario (issue #14).
@MainActor
final class MainActorHopPeer: DeliveryPeer {
    nonisolated static let name = "one main-actor hop (async floor)"
    var callbacks: [@MainActor @Sendable (EventPayloadValue) -> Void] = []

    init(listeners: Int, sink: Sink) async {
        callbacks = (0..<listeners).map { _ in callback(for: sink) }
    }

    func fire(_ payload: EventPayloadValue) {
        let callbacks = self.callbacks
        Task { @MainActor in
            for callback in callbacks {
                callback(payload)
            }
        }
    }
}
