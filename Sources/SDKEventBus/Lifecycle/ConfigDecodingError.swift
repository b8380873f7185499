/// A configuration body that could not be decoded, with what was wrong and where.
///
/// Thrown by ``RemoteConfiguration/decode(from:)`` (``ProjectConfig/init(jsonData:)`` for the built-in
/// configuration), by every fetch service that decodes a body, and by the file cache. The
/// SDK rejects such a body: the previous configuration stays in place and no event fires.
///
/// ```swift
/// do {
///     let config = try ProjectConfig(jsonData: body)
/// } catch {
///     print(error)   // config body is not valid JSON at line 1, column 9 (byte 8), at experiences[0]: …
/// }
/// ```
///
/// Match on ``code`` to handle a kind of failure; new codes may be added without breaking you.
public struct ConfigDecodingError: Error, Sendable, Equatable, CustomStringConvertible {
    /// The kind of failure.
    public struct Code: Hashable, Sendable, CustomStringConvertible {
        private enum Value: Hashable, Sendable {
            case emptyBody
            case bodyTooLarge
            case invalidEncoding
            case invalidSyntax
            case nestingTooDeep
            case duplicateKey
            case numberOutOfRange
            case missingField
            case wrongType
            case invalidValue
        }

        private let value: Value

        /// The body is empty or only whitespace.
        public static let emptyBody = Code(value: .emptyBody)
        /// The body is larger than the limit the fetch service allows.
        public static let bodyTooLarge = Code(value: .bodyTooLarge)
        /// The body is not UTF-8 (it has a byte order mark, is UTF-16, or has an invalid byte).
        public static let invalidEncoding = Code(value: .invalidEncoding)
        /// The body is not well-formed JSON.
        public static let invalidSyntax = Code(value: .invalidSyntax)
        /// Objects and arrays are nested deeper than ``RemoteConfiguration/maximumNestingDepth``.
        public static let nestingTooDeep = Code(value: .nestingTooDeep)
        /// An object has the same key twice.
        public static let duplicateKey = Code(value: .duplicateKey)
        /// A number is too large to represent.
        public static let numberOutOfRange = Code(value: .numberOutOfRange)
        /// A required field is absent (or `null`).
        public static let missingField = Code(value: .missingField)
        /// A field has the wrong JSON type.
        public static let wrongType = Code(value: .wrongType)
        /// A field has the right type but a value that cannot be used.
        public static let invalidValue = Code(value: .invalidValue)

        /// The code's name, for logs.
        public var description: String { "\(value)" }
    }

    /// Where in the body a syntax error was found.
    public struct Location: Hashable, Sendable, CustomStringConvertible {
        /// The offset of the offending byte from the start of the body, from 0.
        public var byteOffset: Int
        /// The line of the offending byte, from 1.
        public var line: Int
        /// The column of the offending byte within its line, in bytes, from 1.
        public var column: Int

        /// The location as `line L, column C (byte B)`.
        public var description: String { "line \(line), column \(column) (byte \(byteOffset))" }
    }

    /// The kind of failure.
    public var code: Code
    /// The path of the offending value, for example `experiences[0].variations[1].traffic_allocation`;
    /// empty for the whole body.
    public var path: String
    /// Where the body stops being valid JSON, for encoding and syntax errors.
    public var location: Location?
    /// What was wrong, in words: what was expected and what was found.
    public var reason: String

    /// Creates an error.
    ///
    /// - Parameters:
    ///   - code: The kind of failure.
    ///   - path: The path of the offending value; empty for the whole body.
    ///   - location: Where the body stops being valid JSON, if it is a syntax error.
    ///   - reason: What was wrong, in words.
    public init(code: Code, path: String = "", location: Location? = nil, reason: String) {
        self.code = code
        self.path = path
        self.location = location
        self.reason = reason
    }

    /// One sentence naming the failure, its location and path, and the reason.
    public var description: String {
        var text = "config body rejected (\(code))"
        if let location { text += " at \(location)" }
        if path.count > 120 {
            text += ", at \(path.prefix(60))…\(path.suffix(60))"
        } else if !path.isEmpty {
            text += ", at \(path)"
        }
        return text + ": \(reason)"
    }
}
