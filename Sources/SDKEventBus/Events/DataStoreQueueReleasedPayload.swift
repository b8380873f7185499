import SDKEventBusConfig

/// The payload announcing that queued data-store writes were flushed (``SystemEvent/dataStoreQueueReleased``).
public struct DataStoreQueueReleasedPayload: Sendable, Equatable, Codable {
    /// Creates the payload.
    public init() {}
}
