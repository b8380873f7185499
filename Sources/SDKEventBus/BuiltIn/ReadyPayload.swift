/// The payload announcing that the SDK has its first configuration (``SystemEvent/ready``).
///
/// ```swift
/// let payload = ReadyPayload()
/// ```
public struct ReadyPayload: Sendable, Equatable, Codable {
    /// Creates the payload.
    public init() {}
}
