package import Foundation

/// Turning what `JSONDecoder` throws into a ``JSONDecodingError`` that names the JSON path and
/// says what was expected, locating with a ``PathTracingDecoder`` what `JSONDecoder` leaves
/// unlocated.
extension JSONDecodingError {
    /// The error for a body the validator accepted and `JSONDecoder` rejected, with its path.
    ///
    /// `JSONDecoder` gives no path for a number that does not fit its field's type, nor for an error
    /// a type's own `init(from:)` throws: for those the body is decoded again through a
    /// ``PathTracingDecoder``, which says where.
    ///
    /// - Parameters:
    ///   - type: The type that was decoded.
    ///   - body: The body, valid JSON.
    ///   - error: What `JSONDecoder` threw.
    package init<Value: Decodable>(decoding type: Value.Type, from body: Data, failedWith error: any Error) {
        if let error = error as? DecodingError, Self.isLocated(error) {
            self.init(error)
            return
        }
        switch PathTracingDecoder.failure(decoding: type, from: body) {
        case let located as Located: self.init(located)
        // A type's own `init(from:)` that reports in this type already (an event's wire form).
        case let reported as JSONDecodingError: self = reported
        case let decoding as DecodingError where Self.isLocated(decoding): self.init(decoding)
        default:
            // The second pass did not fail where the first did (a type that decodes differently
            // each time): say what is known.
            if let decoding = error as? DecodingError {
                self.init(decoding)
            } else {
                self.init(Located(underlying: error))
            }
        }
    }

    /// Whether `JSONDecoder` said where `error` is: a value it could not convert is reported as the
    /// whole body being corrupt ("The given data was not valid JSON"), with no path.
    static func isLocated(_ error: DecodingError) -> Bool {
        guard case .dataCorrupted(let context) = error else { return true }
        return !context.codingPath.isEmpty
    }

    /// Translates a failure the path-tracing pass located.
    init(_ located: Located) {
        let path = Self.path(located.codingPath)
        guard let number = located.number, let literal = located.literal else {
            self.init(
                code: .invalidValue, path: path,
                reason: located.isDecoderError
                    ? "the value cannot be decoded as \(located.typeName)" : "\(located.underlying)")
            return
        }
        let value = Double(literal) ?? .infinity
        if number.isWholeNumber, value.rounded(.towardZero) != value {
            self.init(
                code: .wrongType, path: path, reason: "expected a whole number (\(located.typeName)), found \(literal)")
            return
        }
        // A number the decoder refuses for a floating-point type is too large or, below 1, so close to
        // zero that it would read as 0 (`1e-400` for a `Double`).
        let reason =
            !number.isWholeNumber && abs(value) < 1
            ? """
            the number \(literal.prefix(40)) is too close to zero for \(located.typeName), whose smallest \
            magnitude is \(number.smallest): it would read as 0
            """
            : "the number \(literal.prefix(40)) does not fit in \(located.typeName) (\(number.range))"
        self.init(code: .numberOutOfRange, path: path, reason: reason)
    }

    /// Translates the decoder's error into one that names the path and the expectation in words.
    package init(_ error: DecodingError) {
        switch error {
        case .keyNotFound(let key, let context):
            self.init(
                code: .missingField,
                path: Self.path(context.codingPath + [key]),
                reason: "the required field \"\(key.stringValue)\" is missing"
            )
        case .valueNotFound(let type, let context):
            // A null for the whole body is of the wrong type; in a field, the field is missing.
            self.init(
                code: context.codingPath.isEmpty ? .wrongType : .missingField,
                path: Self.path(context.codingPath),
                reason: "expected \(Self.describe(type)), found null"
            )
        case .typeMismatch(let type, let context):
            self.init(
                code: .wrongType,
                path: Self.path(context.codingPath),
                reason: "expected \(Self.describe(type)); \(context.debugDescription)"
            )
        case .dataCorrupted(let context):
            self.init(code: .invalidValue, path: Self.path(context.codingPath), reason: context.debugDescription)
        @unknown default:
            self.init(code: .invalidValue, reason: "\(error)")
        }
    }

    /// A coding path as `experiences[0].variations[1].traffic_allocation`, written by ``JSONPath``.
    ///
    /// A key is an array's index when it is one the way every `JSONDecoder` makes them: an integer
    /// value, and a string value `Index 0`. A dictionary's key `"5"` has the integer value 5 too, but
    /// its string value is `5`: it is a key (`properties.5`), not an index.
    static func path(_ codingPath: [any CodingKey]) -> String {
        var text = ""
        for key in codingPath {
            if let index = key.intValue, key.stringValue.hasPrefix("Index ") {
                JSONPath.append(index: index, to: &text)
            } else {
                JSONPath.append(key: key.stringValue, to: &text)
            }
        }
        return text
    }

    private static func describe(_ type: Any.Type) -> String {
        switch type {
        case is String.Type: "a string"
        case is Double.Type, is Int.Type: "a number"
        case is Bool.Type: "a boolean"
        case is [Any].Type: "an array"
        default: type == [String: Any].self ? "an object" : "a value of type \(type)"
        }
    }
}
