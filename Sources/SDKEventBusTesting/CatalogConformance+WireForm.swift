import Foundation
public import SDKEventBusCoreTesting
public import SDKEventBusWire

extension CatalogConformance where Catalog.Payload: WireCodablePayload {
    /// Creates a check that also round-trips every sample through the JSON wire form: each encodes,
    /// decodes as the event it was fired as, encodes again to the same bytes, and names its event
    /// by its raw value.
    ///
    /// The compiler chooses this initializer over the core's (in `SDKEventBusCoreTesting`) where
    /// this module is imported and the catalog's payload is known to be a ``/SDKEventBusWire/WireCodablePayload``:
    /// `CatalogConformance<FlagEvent>(rawValues: …, samples: …)` in an SDK's tests. The checks are
    /// the core's, then the wire form's.
    ///
    /// - Parameters:
    ///   - rawValues: The committed raw values, in declaration order.
    ///   - replayRules: The declared replay rule of each event that replays.
    ///   - samples: At least one payload of every event.
    ///   - typedSamples: One value of each payload struct (``/SDKEventBusCore/TypedPayload`` conformer) of the
    ///     catalog, so that a struct whose `event` and `payloadValue` disagree is caught; a sample
    ///     of another catalog is a problem.
    public init(
        rawValues: [String],
        replayRules: [Catalog: ReplayRule] = [:],
        samples: [Catalog.Payload],
        typedSamples: [any TypedPayload] = []
    ) {
        self = coreConformance(rawValues, replayRules, samples, typedSamples)
        sampleChecks.append { Self.wireFormProblem(of: $0) }
    }

    /// What is wrong with `payload`'s wire form; `nil` when it round-trips.
    private static func wireFormProblem(of payload: Catalog.Payload) -> String? {
        // Named by its value, not by its event: a slipped case says another event.
        let name = "the sample \(payload) (fired as \(payload.event.rawValue))"
        do {
            let bytes = try payload.wireJSON()
            let decoded = try Catalog.Payload(wireJSON: bytes)
            guard decoded.event.rawValue == payload.event.rawValue else {
                return "\(name) decodes as \(decoded.event.rawValue)"
            }
            guard try decoded.wireJSON() == bytes else {
                return "\(name) does not round-trip: " + String(decoding: bytes, as: UTF8.self)
            }
            let object = try JSONSerialization.jsonObject(with: bytes) as? [String: Any]
            guard object?["event"] as? String == payload.event.rawValue else {
                return "\(name): its wire form does not name its event by its raw value"
            }
            return nil
        } catch {
            return "\(name) fails the wire form: \(error)"
        }
    }
}

/// The core's check of `Catalog`: generic over any catalog, so the core's initializer is the only
/// one that applies here, whatever the payload type.
private func coreConformance<Catalog: EventCatalog>(
    _ rawValues: [String], _ replayRules: [Catalog: ReplayRule], _ samples: [Catalog.Payload],
    _ typedSamples: [any TypedPayload]
) -> CatalogConformance<Catalog> {
    CatalogConformance(rawValues: rawValues, replayRules: replayRules, samples: samples, typedSamples: typedSamples)
}
