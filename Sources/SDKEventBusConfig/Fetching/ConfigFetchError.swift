public import Foundation

/// A fetch that failed before a body could be decoded: the transport failed, the server answered
/// with an error status, or the body was too large.
///
/// Malformed bodies fail with ``/SDKEventBusWire/JSONDecodingError`` instead. Match on ``code``; new codes may be
/// added without breaking you.
///
/// ```swift
/// if let error = status.lastFetchError as? ConfigFetchError, error.code == .httpStatus {
///     print("the CDN answered \(error.statusCode!)")
/// }
/// ```
public struct ConfigFetchError: Error, Sendable, FetchRetryAdvice, CustomStringConvertible {
    /// The kind of failure.
    public struct Code: Equatable, Sendable {
        /// Which code it is, in the order they are declared: a plain byte rather than an enum, so
        /// that the type needs no value witnesses or hashing of its own.
        private let value: UInt8

        /// The request did not complete: no connection, a timeout, a dropped connection.
        public static let transport = Code(value: 0)
        /// The server answered with a status other than 2xx or 304.
        public static let httpStatus = Code(value: 1)
        /// The body was larger than the service's limit.
        public static let bodyTooLarge = Code(value: 2)
        /// The server answered 304 Not Modified but the service has no body to reuse.
        public static let notModifiedWithoutCache = Code(value: 3)

        /// The code's name, for the error's description.
        var name: String {
            switch value {
            case 0: "transport"
            case 1: "httpStatus"
            case 2: "bodyTooLarge"
            default: "notModifiedWithoutCache"
            }
        }
    }

    /// The kind of failure.
    public let code: Code
    /// The HTTP status, for ``Code/httpStatus``.
    public let statusCode: Int?
    /// How long the server asked to wait (`Retry-After`), in seconds, if it did.
    public let retryAfter: TimeInterval?
    /// The underlying error, for ``Code/transport``.
    public let underlyingError: (any Error)?
    /// What went wrong, in words.
    public let reason: String

    init(
        code: Code,
        statusCode: Int? = nil,
        retryAfter: TimeInterval? = nil,
        underlying: (any Error)? = nil,
        reason: String
    ) {
        self.code = code
        self.statusCode = statusCode
        self.retryAfter = retryAfter
        self.underlyingError = underlying
        self.reason = reason
    }

    /// Whether fetching again soon can succeed.
    ///
    /// Transport failures, 5xx, 408 Request Timeout and 429 Too Many Requests are retried; other 4xx
    /// and oversized bodies are not (they wait for the next refresh).
    public var isRetryable: Bool {
        switch code {
        case .transport, .notModifiedWithoutCache:
            return true
        case .httpStatus:
            guard let statusCode else { return true }
            return statusCode >= 500 || statusCode == 408 || statusCode == 429
        default:
            return false
        }
    }

    /// One sentence naming the failure, its HTTP status when there is one, and the reason.
    public var description: String {
        var text = "config fetch failed (" + code.name
        if let statusCode { text += " " + String(statusCode) }
        text += "): " + reason
        if let retryAfter {
            text +=
                retryAfter > 0
                ? "; the server asked to wait " + retryAfter.description + " seconds"
                : "; the server allowed a retry at once"
        }
        return text
    }

    /// The longest wait a server's `Retry-After` can impose: a day.
    ///
    /// A larger value (or a date far away) is clamped, so that a misbehaving server can neither
    /// overflow the clock nor stop the SDK from ever fetching again.
    static let longestRetryAfter: TimeInterval = 86_400

    /// Parses a `Retry-After` header: delay seconds, or an HTTP date in any of the three formats
    /// RFC 9110 requires recipients to accept; clamped to ``longestRetryAfter``.
    static func retryAfter(header: String?, now: Date = Date()) -> TimeInterval? {
        guard let header = header?.trimmingCharacters(in: .whitespaces), !header.isEmpty else { return nil }
        let longest = longestRetryAfter
        // Only ASCII digits: no scalar outside 0-9, which needs no grapheme breaking to check.
        if header.rangeOfCharacter(from: CharacterSet(charactersIn: "0123456789").inverted) == nil {
            return min(Double(header) ?? longest, longest)
        }
        let formatter = DateFormatter()
        formatter.locale = Locale(identifier: "en_US_POSIX")
        formatter.timeZone = TimeZone(identifier: "GMT")
        for format in [
            "EEE',' dd MMM yyyy HH':'mm':'ss 'GMT'", "EEEE',' dd'-'MMM'-'yy HH':'mm':'ss 'GMT'",
            "EEE MMM d HH':'mm':'ss yyyy",
        ] {
            formatter.dateFormat = format
            if let date = formatter.date(from: header) {
                return min(max(date.timeIntervalSince(now), 0).rounded(.up), longest)
            }
        }
        return nil
    }
}
