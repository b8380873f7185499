import FlagCatalog
import SDKEventBus

/// This package with a catalog declared in another module (`FlagEvent`), for issue #13: the same
/// bus as ``SDKEventBusPeer``, generic over a catalog the library was compiled without.
@MainActor
final class ExternalCatalogPeer: DeliveryPeer {
    nonisolated static let name = "external catalog"
    /// What every fire carries, whatever the benchmark passes: a payload of the same weight as the
    /// built-in `.bucketing` one (three short strings).
    static let payload = FlagEventPayload.flagEvaluated(
        FlagEvaluation(flagKey: "100334665", variationKey: "1003142551", userId: "visitor-42")
    )
    let bus: CatalogBus<FlagEvent>
    let emitter: CatalogEmitter<FlagEvent>

    init(listeners: Int, sink: Sink) async {
        (bus, emitter) = CatalogBus<FlagEvent>.makeBus()
        for _ in 0..<listeners {
            _ = bus.on(.flagEvaluated, callback: flagCallback(for: sink))
        }
    }

    func fire(_ payload: EventPayloadValue) {
        emitter.fire(Self.payload)
    }
}
