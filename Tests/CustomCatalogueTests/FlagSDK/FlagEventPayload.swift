import SDKEventBusCore

/// The payload of a ``FlagEvent``: one case per event, each wrapping its payload struct.
enum FlagEventPayload: CataloguePayload, Equatable {
    /// The payload of ``FlagEvent/initialized``.
    case initialized(InitializedPayload)
    /// The payload of ``FlagEvent/flagsChanged``.
    case flagsChanged(FlagsChangedPayload)
    /// The payload of ``FlagEvent/error``.
    case error(FlagErrorPayload)

    var event: FlagEvent {
        switch self {
        case .initialized: .initialized
        case .flagsChanged: .flagsChanged
        case .error: .error
        }
    }
}

/// The JSON wire form: `{"data":{"changedKeys":["myBoolFlag"]},"event":"flags.changed"}`.
extension FlagEventPayload: WireCodablePayload {
    func encodeData(to encoder: any Encoder) throws {
        switch self {
        case .initialized(let payload): try payload.encode(to: encoder)
        case .flagsChanged(let payload): try payload.encode(to: encoder)
        case .error(let payload): try payload.encode(to: encoder)
        }
    }

    init(event: FlagEvent, dataFrom decoder: any Decoder) throws {
        switch event {
        case .initialized: self = .initialized(try InitializedPayload(from: decoder))
        case .flagsChanged: self = .flagsChanged(try FlagsChangedPayload(from: decoder))
        case .error: self = .error(try FlagErrorPayload(from: decoder))
        }
    }
}
