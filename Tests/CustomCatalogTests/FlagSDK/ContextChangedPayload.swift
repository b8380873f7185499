import SDKEventBusConfig

/// The payload of ``FlagEvent/contextChanged``: the flags now match a new evaluation context.
struct ContextChangedPayload: Equatable, Codable {
    static let event = FlagEvent.contextChanged
    var targetingKey: String
}

extension ContextChangedPayload: TypedPayload {
    init?(_ value: FlagEventPayload) {
        if case .contextChanged(let payload) = value { self = payload } else { return nil }
    }
    var payloadValue: FlagEventPayload { .contextChanged(self) }
}
