import SDKEventBusConfig
import SDKEventBusWire

/// The payload of a ``FlagEvent``: one case per event, named as the event, wrapping its struct.
enum FlagEventPayload: WireCodablePayload, Equatable {
    indirect case initialized(InitializedPayload)  // holds a Readiness.Source: boxed, so the layout is fixed
    case flagsChanged(FlagsChangedPayload)
    case error(FlagErrorPayload)
    case stale(StalePayload)
    case reconciling(ReconcilingPayload)
    case contextChanged(ContextChangedPayload)

    var event: FlagEvent {
        switch self {
        case .initialized: .initialized
        case .flagsChanged: .flagsChanged
        case .error: .error
        case .stale: .stale
        case .reconciling: .reconciling
        case .contextChanged: .contextChanged
        }
    }

    /// The wire form, `{"data":{…},"event":"flags.changed"}`, is derived from the payload structs.
    static let payloadTypes: [any (TypedPayload & Decodable).Type] = [
        InitializedPayload.self, FlagsChangedPayload.self, FlagErrorPayload.self, StalePayload.self,
        ReconcilingPayload.self, ContextChangedPayload.self,
    ]
}
