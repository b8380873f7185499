import SDKEventBusConfig

/// The payload of ``FlagEvent/error``: what went wrong, in words.
struct FlagErrorPayload: Equatable, Codable {
    static let event = FlagEvent.error
    var message: String
}

extension FlagErrorPayload: TypedPayload {
    init?(_ value: FlagEventPayload) { if case .error(let payload) = value { self = payload } else { return nil } }
    var payloadValue: FlagEventPayload { .error(self) }
}
