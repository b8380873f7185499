import SDKEventBusConfig

/// The payload of ``FlagEvent/initialized``: how the SDK became ready, and with how many flags.
struct InitializedPayload: Equatable, Codable {
    static let event = FlagEvent.initialized
    var source: Readiness.Source
    var error: String? = nil
    var flagCount = 0
}

extension InitializedPayload: TypedPayload {
    init?(_ value: FlagEventPayload) {
        if case .initialized(let payload) = value { self = payload } else { return nil }
    }
    var payloadValue: FlagEventPayload { .initialized(self) }
}
