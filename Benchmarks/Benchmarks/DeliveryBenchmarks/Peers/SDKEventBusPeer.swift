import SDKEventBus

/// This package: fires queue under a lock and share one main-actor hop.
@MainActor
final class SDKEventBusPeer: DeliveryPeer {
    nonisolated static let name = "SDKEventBus"
    let bus: EventBus
    let emitter: EventEmitter

    init(listeners: Int, sink: Sink) async {
        (bus, emitter) = EventBus.makeBus()
        recordIfAsked(bus)
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
    let emitter: EventEmitter

    /// Main-actor listeners, spread over the ten events.
    init(liveListeners: Int) async {
        (bus, emitter) = EventBus.makeBus()
        for index in 0..<liveListeners {
            _ = bus.on(SystemEvent.allCases[index % 10]) { _ in }
        }
    }

    func subscribeAndUnsubscribe() async {
        let token = bus.on(.bucketing) { _ in }
        await bus.off(token)
    }

    /// Fires `.bucketing`, the event the pairs subscribe to, until the task is cancelled: bursts of
    /// `burst` fires, each followed by a flush so that the main actor's queue stays bounded.
    ///
    /// The fires come from this task's thread while the main actor delivers them, so subscribing
    /// meanwhile contends with both.
    ///
    /// - Parameters:
    ///   - burst: How many fires before each flush.
    ///   - started: Called once, after the first burst.
    /// - Returns: How many fires it made.
    func fireContinuously(burst: Int, started: @Sendable () -> Void) async -> Int {
        var fires = 0
        while !Task.isCancelled {
            for _ in 0..<burst { emitter.fire(payload) }
            if fires == 0 { started() }
            fires += burst
            await bus.flush()
        }
        return fires
    }
}
