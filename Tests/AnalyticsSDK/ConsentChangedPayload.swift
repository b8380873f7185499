public import SDKEventBusCore

/// The payload of ``AnalyticsEvent/consentChanged``: the user's consent now.
public struct ConsentChangedPayload: TypedPayload, Equatable {
    /// The event this payload belongs to.
    public static let event = AnalyticsEvent.consentChanged
    /// Whether the user lets the SDK track.
    public var consent: Consent

    /// Creates the payload.
    ///
    /// - Parameter consent: Whether the user lets the SDK track.
    public init(consent: Consent) {
        self.consent = consent
    }

    /// Extracts the payload from a value of its event.
    ///
    /// - Parameter value: A payload value; `nil` results unless it is of `consent.changed`.
    public init?(_ value: AnalyticsEventPayload) {
        guard case .consentChanged(let payload) = value else { return nil }
        self = payload
    }

    /// The payload as the catalog's sum type.
    public var payloadValue: AnalyticsEventPayload { .consentChanged(self) }
}
