@testable import SDKEventBus
@testable import SDKEventBusAppEvents
@testable import SDKEventBusConfig
@testable import SDKEventBusCore
@testable import SDKEventBusWire

/// What the model-checked workout does with a bus, so that one workout drives every front of the
/// engine: the catalog bus and the app-event bus.
///
/// A fire carries its ``BusModelChecker/FireKey`` in its payload; every callback hands the key it
/// received to `deliver`.
protocol ModelBus: Sendable {
    /// The engine behind the bus.
    var storage: BusStorage { get }
    func fire(_ key: BusModelChecker.FireKey)
    func subscribe(
        _ event: SystemEvent,
        lane: BusModelChecker.Lane,
        isolation: BusModelTests.ModelActor?,
        once: Bool,
        deliver: @escaping @Sendable (BusModelChecker.FireKey) -> Void
    ) -> EventListenerToken
    /// Subscribes on the main actor, bound to `owner`.
    func subscribe(
        _ event: SystemEvent,
        owned owner: BusModelTests.Owner,
        deliver: @escaping @Sendable (BusModelChecker.FireKey) -> Void
    ) -> EventListenerToken
    func off(_ token: EventListenerToken) async
    func cancel(_ token: EventListenerToken)
    func flush() async
    func listenerCount(for event: SystemEvent) -> Int
    func shutdown()
}

extension BusModelChecker.Lane {
    /// The index of the actor a listener of this lane is isolated to.
    var actorIndex: Int? {
        if case .actor(let index) = self { index } else { nil }
    }
}

/// The built-in catalog bus; the key travels in an `apiQueueReleased` or a `conversion` payload.
struct CatalogModelBus: ModelBus {
    let bus: EventBus
    let emitter: EventEmitter

    init() {
        (bus, emitter) = EventBus.makeBus()
    }

    var storage: BusStorage { bus.storage }

    func fire(_ key: BusModelChecker.FireKey) {
        switch key.event {
        case .apiQueueReleased:
            emitter.fire(.apiQueueReleased(ApiQueueReleasedPayload(eventCount: key.producer << 32 | key.sequence)))
        default:
            emitter.fire(.conversion(ConversionPayload(goalId: "\(key.producer)", visitorId: "\(key.sequence)")))
        }
    }

    static func key(of payload: EventPayloadValue) -> BusModelChecker.FireKey {
        switch payload {
        case .apiQueueReleased(let released):
            BusModelChecker.FireKey(
                event: payload.event,
                producer: released.eventCount >> 32,
                sequence: released.eventCount & 0xFFFF_FFFF
            )
        case .conversion(let conversion):
            BusModelChecker.FireKey(
                event: payload.event,
                producer: Int(conversion.goalId)!,
                sequence: Int(conversion.visitorId)!
            )
        default:
            BusModelChecker.FireKey(event: payload.event, producer: -1, sequence: -1)
        }
    }

    func subscribe(
        _ event: SystemEvent,
        lane: BusModelChecker.Lane,
        isolation: BusModelTests.ModelActor?,
        once: Bool,
        deliver: @escaping @Sendable (BusModelChecker.FireKey) -> Void
    ) -> EventListenerToken {
        let received: @Sendable (EventPayloadValue) -> Void = { deliver(Self.key(of: $0)) }
        switch (lane, isolation) {
        case (.mainActor, _):
            return once ? bus.once(event) { received($0) } : bus.on(event) { received($0) }
        case (.immediate, _):
            return once
                ? bus.once(event, delivery: .immediate, callback: received)
                : bus.on(event, delivery: .immediate, callback: received)
        case (.actor, let actor?):
            return once
                ? bus.once(event, delivery: .isolated(to: actor)) { _, payload in received(payload) }
                : bus.on(event, delivery: .isolated(to: actor)) { _, payload in received(payload) }
        case (.actor, nil):
            preconditionFailure("an actor lane needs its actor")
        }
    }

    func subscribe(
        _ event: SystemEvent,
        owned owner: BusModelTests.Owner,
        deliver: @escaping @Sendable (BusModelChecker.FireKey) -> Void
    ) -> EventListenerToken {
        bus.on(event, owner: owner) { _, payload in deliver(Self.key(of: payload)) }
    }

    func off(_ token: EventListenerToken) async { await bus.off(token) }
    func cancel(_ token: EventListenerToken) { token.cancel() }
    func flush() async { await bus.flush() }
    func listenerCount(for event: SystemEvent) -> Int { bus.listenerCount(for: event) }
    func shutdown() { emitter.shutdown() }
}

/// An app-event bus: each of the two model events is an event type of its own.
struct AppModelBus: ModelBus {
    struct QueueReleased: AppEvent {
        let key: BusModelChecker.FireKey
    }

    struct Converted: AppEvent {
        let key: BusModelChecker.FireKey
    }

    let bus = AppEventBus(name: "model")

    var storage: BusStorage { bus.storage }

    func fire(_ key: BusModelChecker.FireKey) {
        switch key.event {
        case .apiQueueReleased: bus.publish(QueueReleased(key: key))
        default: bus.publish(Converted(key: key))
        }
    }

    func subscribe(
        _ event: SystemEvent,
        lane: BusModelChecker.Lane,
        isolation: BusModelTests.ModelActor?,
        once: Bool,
        deliver: @escaping @Sendable (BusModelChecker.FireKey) -> Void
    ) -> EventListenerToken {
        switch event {
        case .apiQueueReleased:
            subscribe(QueueReleased.self, lane: lane, isolation: isolation, once: once) { deliver($0.key) }
        default:
            subscribe(Converted.self, lane: lane, isolation: isolation, once: once) { deliver($0.key) }
        }
    }

    private func subscribe<Event: AppEvent>(
        _ type: Event.Type,
        lane: BusModelChecker.Lane,
        isolation: BusModelTests.ModelActor?,
        once: Bool,
        received: @escaping @Sendable (Event) -> Void
    ) -> EventListenerToken {
        switch (lane, isolation) {
        case (.mainActor, _):
            return once
                ? bus.once(type) { received($0) }
                : bus.on(type) { received($0) }
        case (.immediate, _):
            return once
                ? bus.once(type, delivery: .immediate, callback: received)
                : bus.on(type, delivery: .immediate, callback: received)
        case (.actor, let actor?):
            return once
                ? bus.once(type, delivery: .isolated(to: actor)) { _, event in received(event) }
                : bus.on(type, delivery: .isolated(to: actor)) { _, event in received(event) }
        case (.actor, nil):
            preconditionFailure("an actor lane needs its actor")
        }
    }

    func subscribe(
        _ event: SystemEvent,
        owned owner: BusModelTests.Owner,
        deliver: @escaping @Sendable (BusModelChecker.FireKey) -> Void
    ) -> EventListenerToken {
        switch event {
        case .apiQueueReleased:
            bus.on(QueueReleased.self, owner: owner) { _, event in deliver(event.key) }
        default:
            bus.on(Converted.self, owner: owner) { _, event in deliver(event.key) }
        }
    }

    func off(_ token: EventListenerToken) async { await bus.off(token) }
    func cancel(_ token: EventListenerToken) { token.cancel() }
    func flush() async { await bus.flush() }

    func listenerCount(for event: SystemEvent) -> Int {
        switch event {
        case .apiQueueReleased: bus.listenerCount(for: QueueReleased.self)
        default: bus.listenerCount(for: Converted.self)
        }
    }

    /// The app bus has no shutdown: ending every subscription is what releasing it does.
    func shutdown() {
        bus.cancelAll()
    }
}
