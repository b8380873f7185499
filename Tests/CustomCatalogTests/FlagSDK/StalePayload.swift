import SDKEventBusConfig

/// The payload of ``FlagEvent/stale``: why the flags in use may be out of date.
struct StalePayload: Equatable, Codable {
    static let event = FlagEvent.stale
    var reason: String
}

extension StalePayload: TypedPayload {
    init?(_ value: FlagEventPayload) { if case .stale(let payload) = value { self = payload } else { return nil } }
    var payloadValue: FlagEventPayload { .stale(self) }
}
