import SDKEventBusCore

/// The payload of ``FlagEvent/flagsChanged``: the keys of the flags added, removed or changed.
struct FlagsChangedPayload: Sendable, Equatable, Codable {
    /// The keys, sorted.
    var changedKeys: [String]
}

extension FlagsChangedPayload: TypedPayload {
    static var event: FlagEvent { .flagsChanged }

    init?(_ value: FlagEventPayload) {
        guard case .flagsChanged(let payload) = value else { return nil }
        self = payload
    }

    var payloadValue: FlagEventPayload { .flagsChanged(self) }
}
