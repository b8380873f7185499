public import SDKEventBusCore

/// The payload of ``AnalyticsEvent/sessionStarted``: the new session.
public struct SessionStartedPayload: TypedPayload, Equatable {
    /// The event this payload belongs to.
    public static let event = AnalyticsEvent.sessionStarted
    /// The session's identifier, stamped on every event tracked in it.
    public var sessionID: String

    /// Creates the payload.
    ///
    /// - Parameter sessionID: The session's identifier.
    public init(sessionID: String) {
        self.sessionID = sessionID
    }

    /// Extracts the payload from a value of its event.
    ///
    /// - Parameter value: A payload value; `nil` results unless it is of `session.started`.
    public init?(_ value: AnalyticsEventPayload) {
        guard case .sessionStarted(let payload) = value else { return nil }
        self = payload
    }

    /// The payload as the catalog's sum type.
    public var payloadValue: AnalyticsEventPayload { .sessionStarted(self) }
}
