import SDKEventBus

/// A design that delivers an event to listeners on the main actor, measured side by side.
@MainActor
protocol DeliveryPeer: SendableMetatype {
    /// A short name for the results table.
    nonisolated static var name: String { get }

    /// Creates the design with `listeners` listeners of `.bucketing`, each calling `sink`.
    init(listeners: Int, sink: Sink) async

    /// Fires one event, the way the design's users fire: it may deliver inline or later.
    func fire(_ payload: EventPayloadValue) async
}

/// A design that can add and remove one listener among many, measured side by side.
protocol SubscriptionPeer: Sendable {
    static var name: String { get }
    init(liveListeners: Int) async
    /// Adds one listener and removes it again.
    func subscribeAndUnsubscribe() async
}
