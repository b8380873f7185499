/// A wire-form event that could not be decoded, with what was wrong and where.
///
/// Thrown by ``WireCodablePayload/init(wireJSON:)`` and by a wire-codable payload's `Decodable`
/// conformance.
///
/// ```swift
/// do {
///     let payload = try EventPayloadValue(wireJSON: message)
/// } catch {
///     print(error)   // event rejected (unknownEvent), at event: "bucketed" is not an event of the catalogue
/// }
/// ```
public struct EventDecodingError: Error, Sendable, Hashable, CustomStringConvertible {
    /// The kind of failure.
    ///
    /// New codes may be added without breaking you.
    public struct Code: Hashable, Sendable, CustomStringConvertible {
        private enum Value: Hashable, Sendable {
            case invalidJSON
            case missingField
            case unknownEvent
            case invalidData
        }

        private let value: Value

        /// The bytes are not a JSON object.
        public static let invalidJSON = Code(value: .invalidJSON)
        /// The object has no `event` or no `data`.
        public static let missingField = Code(value: .missingField)
        /// The `event` is not a raw value of the catalogue.
        public static let unknownEvent = Code(value: .unknownEvent)
        /// The `data` does not match the event's payload.
        public static let invalidData = Code(value: .invalidData)

        /// The code's name, for logs.
        public var description: String { "\(value)" }
    }

    /// The kind of failure.
    public var code: Code
    /// The path of the offending value, for example `data.visitorId`; empty for the whole object.
    public var path: String
    /// What was wrong, in words.
    public var reason: String

    /// Creates an error.
    ///
    /// - Parameters:
    ///   - code: The kind of failure.
    ///   - path: The path of the offending value.
    ///   - reason: What was wrong, in words.
    public init(code: Code, path: String = "", reason: String) {
        self.code = code
        self.path = path
        self.reason = reason
    }

    /// One sentence naming the failure, the path and the reason.
    public var description: String {
        "event rejected (\(code))" + (path.isEmpty ? "" : ", at \(path)") + ": \(reason)"
    }
}
