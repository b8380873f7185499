/// A JSON body that could not be decoded — a configuration, a cached configuration, an event's wire
/// form — with what was wrong and where.
///
/// Thrown by `RemoteConfig.decode(from:)` (in `SDKEventBusConfig`), by every fetch service that decodes a body, by
/// the file cache, and by the wire form's `WireCodablePayload.init(wireJSON:)`. The SDK rejects such a
/// configuration: the previous one stays in place and no event fires.
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
public struct JSONDecodingError: Error, Sendable, Equatable, CustomStringConvertible {
    /// The kind of failure.
    public struct Code: Equatable, Sendable, CustomStringConvertible {
        /// Which code it is, in the order they are declared: a plain byte rather than an enum, so
        /// that the type needs no value witnesses or hashing of its own.
        private let value: UInt8

        /// The body is empty or only whitespace.
        public static let emptyBody = Code(value: 0)
        /// The body is not UTF-8 (it is UTF-16, or has an invalid byte).
        ///
        /// A leading UTF-8 byte order mark is skipped, not rejected.
        public static let invalidEncoding = Code(value: 1)
        /// The body is not well-formed JSON.
        public static let invalidSyntax = Code(value: 2)
        /// Objects and arrays are nested deeper than `RemoteConfig.maximumNestingDepth`.
        public static let nestingTooDeep = Code(value: 3)
        /// An object has the same key twice.
        public static let duplicateKey = Code(value: 4)
        /// A number is too large to represent, or does not fit its field's type (`300` for a
        /// `UInt8`, `99999999999999999999` for an `Int`), or is so close to zero that its field's type
        /// would read it as 0 (`1e-400` for a `Double`, `1e-50` for a `Float`).
        public static let numberOutOfRange = Code(value: 5)
        /// A required field is absent (or `null`).
        public static let missingField = Code(value: 6)
        /// A field has the wrong JSON type, or a fraction where a whole number is expected (`1.5`
        /// for an `Int`).
        public static let wrongType = Code(value: 7)
        /// A field has the right type but a value that cannot be used: an unknown enum case, an
        /// invalid URL, or a value your type's own `init(from:)` rejected with an error of its own.
        public static let invalidValue = Code(value: 8)
        /// An event's wire form names an event its catalog does not have.
        public static let unknownEvent = Code(value: 9)

        /// The code's name, for logs.
        public var description: String {
            switch value {
            case 0: "emptyBody"
            case 1: "invalidEncoding"
            case 2: "invalidSyntax"
            case 3: "nestingTooDeep"
            case 4: "duplicateKey"
            case 5: "numberOutOfRange"
            case 6: "missingField"
            case 7: "wrongType"
            case 8: "invalidValue"
            default: "unknownEvent"
            }
        }
    }

    /// The kind of failure.
    public var code: Code
    /// The path of the offending value, for example `experiences[0].variations[1].traffic_allocation`;
    /// empty for the whole body.
    ///
    /// A key that is empty or holds `.`, `[`, `]`, `"`, `\` or a control character is written as a
    /// JSON string in brackets, so that no two places share a path: `data.properties["a.b"]` is the
    /// key `a.b`, and `data.properties.a.b` the key `b` inside `a`.
    public var path: String
    /// The line of the offending byte, from 1, for the errors the syntax check finds (encoding,
    /// syntax, nesting, duplicate keys, numbers too large); `nil` for the others.
    ///
    /// A line ends at a line feed, a carriage return or both (CRLF), as an editor counts lines.
    public var line: Int?
    /// The column of the offending byte within its ``line``, in bytes, from 1; `nil` when there is
    /// no line.
    public var column: Int?
    /// The offset of the offending byte from the start of the body, from 0; `nil` when there is no
    /// line.
    public var byteOffset: Int?
    /// What was wrong, in words: what was expected and what was found.
    public var reason: String

    /// Creates an error.
    ///
    /// - Parameters:
    ///   - code: The kind of failure.
    ///   - path: The path of the offending value; empty for the whole body.
    ///   - line: The line of the offending byte, from 1, if the body's syntax is at fault.
    ///   - column: Its column within the line, in bytes, from 1.
    ///   - byteOffset: Its offset from the start of the body, from 0.
    ///   - reason: What was wrong, in words.
    public init(
        code: Code, path: String = "", line: Int? = nil, column: Int? = nil, byteOffset: Int? = nil, reason: String
    ) {
        self.code = code
        self.path = path
        self.line = line
        self.column = column
        self.byteOffset = byteOffset
        self.reason = reason
    }

    /// An error at the byte the tokenizer located.
    package init(
        code: Code, path: String = "", location: (line: Int, column: Int, byteOffset: Int), reason: String
    ) {
        self.init(
            code: code, path: path, line: location.line, column: location.column, byteOffset: location.byteOffset,
            reason: reason)
    }

    /// One sentence naming the failure, where it is in the body, its path and the reason:
    /// `JSON rejected (invalidSyntax) at line 1, column 9 (byte 8), at experiences[0]: …`.
    public var description: String {
        var text = "JSON rejected (" + code.description + ")"
        // Where the offending byte is, as ` at line L, column C (byte B)`, with what is known of it.
        if let line { Self.append(" at line ", line, to: &text) }
        if let column { Self.append(line == nil ? " at column " : ", column ", column, to: &text) }
        if let byteOffset {
            let hasPlace = line != nil || column != nil
            Self.append(hasPlace ? " (byte " : " at byte ", byteOffset, to: &text)
            if hasPlace { text += ")" }
        }
        if path.count > 120 {
            text += ", at \(path.prefix(60))…\(path.suffix(60))"
        } else if !path.isEmpty {
            text += ", at " + path
        }
        return text + ": " + reason
    }

    /// Appends `label`, then `number`, to `text`: one call for each part of a position.
    @inline(never)
    private static func append(_ label: String, _ number: Int, to text: inout String) {
        text += label
        text += String(number)
    }
}

extension JSONDecodingError {
    /// A decoding failure with the coding path where it happened, as ``PathTracingDecoder`` finds
    /// it: the decoder's error for a value it could not convert, or a type's own error.
    ///
    /// A class, so that it needs no value witnesses of its own.
    final class Located: Error {
        /// What a number field accepts.
        ///
        /// Whether the type holds whole numbers only, the values it holds, in words, and for a
        /// floating-point type its smallest magnitude above zero, in words. A tuple, so that it needs
        /// no value witnesses of its own.
        typealias NumberType = (isWholeNumber: Bool, range: String, smallest: String)

        /// Where the failure happened.
        let codingPath: [any CodingKey]
        /// The Swift type being decoded there.
        let typeName: String
        /// The accepted numbers, when the type is a number type.
        let number: NumberType?
        /// What was thrown.
        let underlying: any Error

        /// Locates `underlying`, thrown while decoding `type` at `codingPath`.
        init(codingPath: [any CodingKey], type: Any.Type, underlying: any Error) {
            self.codingPath = codingPath
            self.typeName = "\(type)"
            self.number = Self.numberType(type)
            self.underlying = underlying
        }

        /// A failure nothing located.
        init(underlying: any Error) {
            codingPath = []
            typeName = "the expected type"
            number = nil
            self.underlying = underlying
        }

        /// Whether the decoder threw it (a value it could not convert), rather than a type's own
        /// `init(from:)`.
        var isDecoderError: Bool { literal != nil || "\(type(of: underlying))" == "JSONError" }

        /// The number as it is written in the body, when the decoder's error quotes it (the decoder of
        /// swift-foundation: `numberIsNotRepresentableInSwift(parsed:)`).
        var literal: String? {
            guard "\(underlying)".hasPrefix("numberIsNotRepresentableInSwift") else { return nil }
            return Self.firstString(in: Mirror(reflecting: underlying), depth: 3)
        }

        private static func firstString(in mirror: Mirror, depth: Int) -> String? {
            for child in mirror.children {
                if let string = child.value as? String { return string }
                if depth > 0, let found = firstString(in: Mirror(reflecting: child.value), depth: depth - 1) {
                    return found
                }
            }
            return nil
        }

        private static func numberType(_ type: Any.Type) -> NumberType? {
            func integer<Integer: FixedWidthInteger>(_: Integer.Type) -> NumberType {
                (isWholeNumber: true, range: "\(Integer.min) to \(Integer.max)", smallest: "")
            }
            func floatingPoint<Float: BinaryFloatingPoint>(_: Float.Type) -> NumberType {
                (
                    isWholeNumber: false, range: "up to ±\(Float.greatestFiniteMagnitude)",
                    smallest: "\(Float.leastNonzeroMagnitude)"
                )
            }
            if let integerType = type as? any FixedWidthInteger.Type { return integer(integerType) }
            if let floatingPointType = type as? any BinaryFloatingPoint.Type { return floatingPoint(floatingPointType) }
            return nil
        }
    }
}
