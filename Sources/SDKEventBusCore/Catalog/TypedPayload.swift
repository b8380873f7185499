/// A payload struct that knows its event: the link that makes typed subscriptions and typed fires
/// checked by the compiler.
///
/// Conform each payload struct of a catalog. Subscribe with the type and the callback receives the
/// struct itself, with no pattern matching:
///
/// ```swift
/// let token = bus.on(BucketingPayload.self) { bucketing in
///     print(bucketing.variationId)
/// }
/// emitter.fire(BucketingPayload(experienceId: "e", variationId: "v", visitorId: "u"))
/// ```
public protocol TypedPayload<Catalog>: Sendable {
    /// The catalog the payload's event belongs to.
    associatedtype Catalog: EventCatalog

    /// The event this payload belongs to.
    static var event: Catalog { get }

    /// Extracts the payload from a value of its event.
    ///
    /// - Parameter value: A payload value; `nil` results unless it is of this payload's event.
    init?(_ value: Catalog.Payload)

    /// The payload as the catalog's sum type.
    var payloadValue: Catalog.Payload { get }
}

extension TypedPayload {
    /// The payload as the catalog's sum type, checked in debug builds to be a value of the
    /// payload's own event: every place that turns a payload struct into a value goes through it.
    ///
    /// A struct whose ``event`` names one event while its ``payloadValue`` wraps another's case (a
    /// copy-paste slip) would otherwise be fired as the other event: it reaches the other event's
    /// listeners and none of its own. A debug build stops with ``eventSlip(in:)``'s message.
    @inlinable
    package var checkedPayloadValue: Catalog.Payload {
        // Inlinable with the typed `fire`, which it serves: specialized in the caller, the wrapping
        // is a direct call. The check follows the caller's build (an SDK's debug build checks).
        let value = payloadValue
        assert(value.event == Self.event, Self.eventSlip(in: value) ?? "")
        return value
    }

    /// What is wrong when `value`, this struct's ``payloadValue``, is not of its ``event``; `nil` when
    /// it is.
    ///
    /// - Parameter value: A payload value this struct produced.
    /// - Returns: One sentence naming the struct and both events, or `nil`.
    // Emitted only into its callers, the checks of debug builds and the conformance test: a release
    // build of an SDK carries none of it.
    @_alwaysEmitIntoClient
    package static func eventSlip(in value: Catalog.Payload) -> String? {
        guard value.event != event else { return nil }
        return "\(Self.self).event is \(event.rawValue), but its payloadValue is a payload of \(value.event.rawValue): "
            + "fired, it would reach \(value.event.rawValue) listeners and no \(event.rawValue) listener; "
            + "make payloadValue wrap the \(event.rawValue) case"
    }
}
