import SDKEventBus

/// A design that delivers an event to listeners isolated to one custom actor, measured side by
/// side (issue #14).
@MainActor
protocol ActorDeliveryPeer: SendableMetatype {
    /// A short name for the results table.
    nonisolated static var name: String { get }

    /// Creates the design with `listeners` listeners of `.bucketing`, each isolated to `sink` and
    /// calling it.
    init(listeners: Int, sink: ActorSink)

    /// Fires one event; delivery happens later, on `sink`.
    func fire(_ payload: EventPayloadValue)
}

/// This package: `on(_:isolation:)`; fires queue under a lock and share one job on the actor.
@MainActor
final class SDKEventBusActorPeer: ActorDeliveryPeer {
    nonisolated static let name = "SDKEventBus"
    let bus: EventBus
    let emitter: EventEmitter

    init(listeners: Int, sink: ActorSink) {
        (bus, emitter) = EventBus.makeBus()
        recordIfAsked(bus)
        for _ in 0..<listeners {
            bus.on(.bucketing, delivery: .isolated(to: sink)) { sink, payload in sink.receive(payload) }
        }
    }

    func fire(_ payload: EventPayloadValue) {
        emitter.fire(payload)
    }
}

/// The design to beat: one `Task` per callback, each running the callback on the actor.
///
/// The listeners are a plain array read on the main actor, with no bus actor to hop through, so
/// the peer pays only for the tasks.
@MainActor
final class TaskPerCallbackActorPeer: ActorDeliveryPeer {
    nonisolated static let name = "Task per callback on the actor"
    let sink: ActorSink
    var callbacks: [@Sendable (isolated ActorSink, EventPayloadValue) -> Void] = []

    init(listeners: Int, sink: ActorSink) {
        self.sink = sink
        callbacks = (0..<listeners).map { _ in { sink, payload in sink.receive(payload) } }
    }

    func fire(_ payload: EventPayloadValue) {
        for callback in callbacks {
            Self.start(callback, on: sink, with: payload)
        }
    }

    /// Starts the task outside the main actor, so that it goes straight to `sink` rather than
    /// through the main actor first.
    private nonisolated static func start(
        _ callback: @escaping @Sendable (isolated ActorSink, EventPayloadValue) -> Void,
        on sink: ActorSink,
        with payload: EventPayloadValue
    ) {
        Task { await sink.run(callback, with: payload) }
    }
}
