import SDKEventBusCore

/// The payload of ``FlagEvent/error``: what went wrong, in words.
struct FlagErrorPayload: Sendable, Equatable, Codable {
    /// What went wrong.
    var message: String
}

extension FlagErrorPayload: TypedPayload {
    static var event: FlagEvent { .error }

    init?(_ value: FlagEventPayload) {
        guard case .error(let payload) = value else { return nil }
        self = payload
    }

    var payloadValue: FlagEventPayload { .error(self) }
}
