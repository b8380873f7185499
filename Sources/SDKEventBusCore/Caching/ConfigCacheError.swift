/// A cached configuration that could not be read or written.
///
/// The client never fails because of its cache: a corrupt or unreadable cache is ignored (the SDK
/// does not become ready from it) and reported as ``LifecycleDiagnostic/cacheRejected(_:)``.
public struct ConfigCacheError: Error, Sendable, CustomStringConvertible {
    /// The kind of failure.
    public struct Code: Hashable, Sendable, CustomStringConvertible {
        private enum Value: Hashable, Sendable {
            case unreadable
            case corrupt
            case unwritable
        }

        private let value: Value

        /// The cache exists but could not be read.
        public static let unreadable = Code(value: .unreadable)
        /// The cache was read but is not a valid configuration; ``decodingError`` says why.
        public static let corrupt = Code(value: .corrupt)
        /// The configuration could not be written.
        public static let unwritable = Code(value: .unwritable)

        /// The code's name, for logs.
        public var description: String { "\(value)" }
    }

    /// The kind of failure.
    public let code: Code
    /// Where the cache is, for logs.
    public let location: String
    /// Why the cache is corrupt, for ``Code/corrupt``.
    public let decodingError: ConfigDecodingError?
    /// The underlying error, for ``Code/unreadable`` and ``Code/unwritable``.
    public let underlying: (any Error)?

    /// Creates an error.
    ///
    /// - Parameters:
    ///   - code: The kind of failure.
    ///   - location: Where the cache is.
    ///   - decodingError: Why the cache is corrupt.
    ///   - underlying: The underlying error.
    public init(code: Code, location: String, decodingError: ConfigDecodingError? = nil, underlying: (any Error)? = nil)
    {
        self.code = code
        self.location = location
        self.decodingError = decodingError
        self.underlying = underlying
    }

    /// One sentence naming the failure and the cache.
    public var description: String {
        let detail = decodingError.map { "\($0)" } ?? underlying.map { "\($0)" } ?? ""
        return "config cache \(code) at \(location)" + (detail.isEmpty ? "" : ": \(detail)")
    }
}
