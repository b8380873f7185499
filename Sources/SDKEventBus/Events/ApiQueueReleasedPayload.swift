import SDKEventBusConfig

/// The payload announcing that queued tracking calls were sent to the API (``SystemEvent/apiQueueReleased``).
///
/// ```swift
/// let payload = ApiQueueReleasedPayload(eventCount: 12)
/// ```
public struct ApiQueueReleasedPayload: Sendable, Equatable, Codable {
    /// How many queued events were sent.
    public var eventCount: Int

    /// Creates the payload.
    ///
    /// - Parameter eventCount: How many queued events were sent.
    public init(eventCount: Int) {
        self.eventCount = eventCount
    }
}
