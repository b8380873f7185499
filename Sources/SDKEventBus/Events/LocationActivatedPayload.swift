import SDKEventBusConfig

/// The payload announcing that a location became active (``SystemEvent/locationActivated``).
///
/// ```swift
/// let payload = LocationActivatedPayload(properties: ["location": "events"])
/// ```
public struct LocationActivatedPayload: Sendable, Equatable, Codable {
    /// The properties the location's rules were evaluated against.
    public var properties: [String: String]

    /// Creates the payload.
    ///
    /// - Parameter properties: The properties the location's rules were evaluated against.
    public init(properties: [String: String]) {
        self.properties = properties
    }
}
