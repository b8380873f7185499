import SDKEventBusConfig

/// The payload of ``FlagEvent/flagsChanged``: the keys of the flags added, removed or changed.
struct FlagsChangedPayload: Equatable, Codable {
    static let event = FlagEvent.flagsChanged
    var changedKeys: [String]
}

extension FlagsChangedPayload: TypedPayload {
    init?(_ value: FlagEventPayload) {
        if case .flagsChanged(let payload) = value { self = payload } else { return nil }
    }
    var payloadValue: FlagEventPayload { .flagsChanged(self) }
}
