/// An event in the upload queue: what ``Analytics/track(_:properties:)`` and
/// ``Analytics/screen(_:properties:)`` record, and what the uploader receives in batches.
public struct TrackedEvent: Sendable, Equatable {
    /// What the app recorded.
    public enum Kind: String, Sendable, Hashable {
        /// An action: ``Analytics/track(_:properties:)``.
        case track
        /// A screen shown: ``Analytics/screen(_:properties:)``.
        case screen
    }

    /// What the app recorded.
    public var kind: Kind
    /// The event's or the screen's name.
    public var name: String
    /// What the app said about it.
    public var properties: [String: String]
    /// The session it happened in.
    public var sessionID: String

    /// Creates an event.
    ///
    /// - Parameters:
    ///   - kind: What the app recorded.
    ///   - name: The event's or the screen's name.
    ///   - properties: What the app said about it.
    ///   - sessionID: The session it happened in.
    public init(kind: Kind, name: String, properties: [String: String] = [:], sessionID: String) {
        self.kind = kind
        self.name = name
        self.properties = properties
        self.sessionID = sessionID
    }
}
