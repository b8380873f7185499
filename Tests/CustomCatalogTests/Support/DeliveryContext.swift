import SDKEventBusConfig
import SDKEventBusTesting
import Testing

/// The three places a subscription's callback can run; bus tests run once in each.
enum DeliveryContext: String, CaseIterable, Sendable, CustomTestStringConvertible {
    /// `on(event) { … }`: on the main actor.
    case mainActor = "main actor"
    /// `on(event, delivery: .isolated(to: actor)) { actor, payload in … }`: isolated to an actor.
    case actor = "an actor"
    /// `on(event, delivery: .immediate) { … }`: on the firing thread, before `fire` returns.
    case immediate = "immediate"

    var testDescription: String { rawValue }

    /// The contexts where fires queue until the context's executor delivers them.
    static let queued: [DeliveryContext] = [.mainActor, .actor]
}

/// An actor that actor-context listeners are isolated to.
actor ListenerActor {
    /// The actor tests isolate their listeners to unless they need their own: it lives for the
    /// whole run, since a bus holds an isolation actor weakly.
    static let shared = ListenerActor()
}

/// Subscribes a test's listeners in one delivery context, so that one test body pins a guarantee
/// in all three.
struct Listeners: Sendable {
    let bus: FlagBus
    let context: DeliveryContext
    let actor: ListenerActor

    init(_ bus: FlagBus, in context: DeliveryContext, isolation actor: ListenerActor = .shared) {
        self.bus = bus
        self.context = context
        self.actor = actor
    }

    /// Subscribes `callback` to `event` in the context.
    @discardableResult
    func on(
        _ event: FlagEvent,
        replayLatest: Bool = false,
        _ callback: @escaping @Sendable (FlagEventPayload) -> Void
    ) -> EventSubscription {
        switch context {
        case .mainActor:
            bus.on(event, replayLatest: replayLatest) { payload in
                MainActor.preconditionIsolated()
                callback(payload)
            }
        case .actor:
            bus.on(event, delivery: .isolated(to: actor), replayLatest: replayLatest) { actor, payload in
                actor.preconditionIsolated()
                callback(payload)
            }
        case .immediate:
            bus.on(event, delivery: .immediate, replayLatest: replayLatest, callback: callback)
        }
    }

    /// Subscribes `callback` to the next `event` only, in the context.
    @discardableResult
    func once(_ event: FlagEvent, _ callback: @escaping @Sendable (FlagEventPayload) -> Void) -> EventSubscription {
        switch context {
        case .mainActor: bus.once(event) { callback($0) }
        case .actor: bus.once(event, delivery: .isolated(to: actor)) { _, payload in callback(payload) }
        case .immediate: bus.once(event, delivery: .immediate, callback: callback)
        }
    }

    /// Subscribes `callback` to the event of `payloadType`, handed the payload struct, in the context.
    @discardableResult
    func on<Payload: TypedPayload<FlagEvent>>(
        _ payloadType: Payload.Type,
        _ callback: @escaping @Sendable (Payload) -> Void
    ) -> EventSubscription {
        switch context {
        case .mainActor: bus.on(payloadType) { callback($0) }
        case .actor: bus.on(payloadType, delivery: .isolated(to: actor)) { _, payload in callback(payload) }
        case .immediate: bus.on(payloadType, delivery: .immediate, callback: callback)
        }
    }

    /// An event recorder subscribed to every event in the context.
    func recorder() -> EventRecorder<FlagEvent> {
        switch context {
        case .mainActor: EventRecorder(bus)
        case .actor: EventRecorder(bus, delivery: .isolated(to: actor))
        case .immediate: EventRecorder(bus, delivery: .immediate)
        }
    }
}

extension FlagEventPayload {
    /// A `flags.changed` payload that carries a number, for tests that check order.
    static func numbered(_ number: Int) -> FlagEventPayload {
        .flagsChanged(FlagsChangedPayload(changedKeys: ["flag-\(number)"]))
    }

    /// The number a ``numbered(_:)`` payload carries.
    var number: Int? {
        guard case .flagsChanged(let payload) = self, let key = payload.changedKeys.first else { return nil }
        return Int(key.dropFirst("flag-".count))
    }

    /// One payload of every event, in declaration order.
    static let samples: [FlagEventPayload] = [
        .initialized(InitializedPayload(source: .live)),
        .flagsChanged(FlagsChangedPayload(changedKeys: ["myBoolFlag", "headerColor"])),
        .error(FlagErrorPayload(message: "JSON rejected")),
        .stale(StalePayload(reason: "offline")),
        .reconciling(ReconcilingPayload()),
        .contextChanged(ContextChangedPayload(targetingKey: "user-1")),
    ]
}

extension Listeners {
    /// Runs `body` on the executor that delivers to the context's listeners (the main actor, or the
    /// listener actor), so that what it fires stays queued until it suspends: the way to pin what
    /// happens to fires not yet delivered.
    ///
    /// Immediate listeners have no queue: what `body` fires is delivered before `fire` returns.
    func withDeliveryHeld(_ body: @Sendable (isolated any Actor) async -> Void) async {
        await Self.run(isolatedTo: context == .mainActor ? MainActor.shared : actor, body)
    }

    private static func run(
        isolatedTo actor: isolated any Actor,
        _ body: @Sendable (isolated any Actor) async -> Void
    ) async {
        await body(actor)
    }
}
