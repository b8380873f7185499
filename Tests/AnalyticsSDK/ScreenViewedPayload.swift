public import SDKEventBusCore

/// The payload of ``AnalyticsEvent/screenViewed``: the screen the app showed.
public struct ScreenViewedPayload: TypedPayload, Equatable {
    /// The event this payload belongs to.
    public static let event = AnalyticsEvent.screenViewed
    /// The screen's name.
    public var name: String
    /// What the app said about it.
    public var properties: [String: String]

    /// Creates the payload.
    ///
    /// - Parameters:
    ///   - name: The screen's name.
    ///   - properties: What the app said about it.
    public init(name: String, properties: [String: String] = [:]) {
        self.name = name
        self.properties = properties
    }

    /// Extracts the payload from a value of its event.
    ///
    /// - Parameter value: A payload value; `nil` results unless it is of `screen.viewed`.
    public init?(_ value: AnalyticsEventPayload) {
        guard case .screenViewed(let payload) = value else { return nil }
        self = payload
    }

    /// The payload as the catalog's sum type.
    public var payloadValue: AnalyticsEventPayload { .screenViewed(self) }
}
