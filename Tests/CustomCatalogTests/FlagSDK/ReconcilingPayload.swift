import SDKEventBusConfig

/// The payload of ``FlagEvent/reconciling``: the SDK is fetching flags for a new context.
struct ReconcilingPayload: Equatable, Codable {
    static let event = FlagEvent.reconciling
}

extension ReconcilingPayload: TypedPayload {
    init?(_ value: FlagEventPayload) {
        if case .reconciling(let payload) = value { self = payload } else { return nil }
    }
    var payloadValue: FlagEventPayload { .reconciling(self) }
}
