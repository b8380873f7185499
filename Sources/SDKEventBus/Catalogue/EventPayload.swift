/// A payload struct that knows its event: the link that makes typed subscriptions and typed fires
/// checked by the compiler.
///
/// Conform each payload struct of a catalogue. Subscribe with the type and the callback receives the
/// struct itself, with no pattern matching:
///
/// ```swift
/// let token = bus.on(BucketingPayload.self) { bucketing in
///     print(bucketing.variationId)
/// }
/// emitter.fire(BucketingPayload(experienceId: "e", variationId: "v", visitorId: "u"))
/// ```
public protocol EventPayload<Catalogue>: Sendable {
    /// The catalogue the payload's event belongs to.
    associatedtype Catalogue: EventCatalogue

    /// The event this payload belongs to.
    static var event: Catalogue { get }

    /// Extracts the payload from a value of its event.
    ///
    /// - Parameter value: A payload value; `nil` results unless it is of this payload's event.
    init?(_ value: Catalogue.Payload)

    /// The payload as the catalogue's sum type.
    var payloadValue: Catalogue.Payload { get }
}
