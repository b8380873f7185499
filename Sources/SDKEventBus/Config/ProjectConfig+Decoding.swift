public import Foundation

extension ProjectConfig {
    /// How deep objects and arrays may nest in a configuration body.
    ///
    /// Real configurations nest about ten levels (rules within rules); feature variables carry
    /// free-form JSON, hence the margin.
    public static let maximumNestingDepth = 128

    /// Decodes a configuration body, rejecting anything malformed with an error that says what is
    /// wrong and where.
    ///
    /// Every fetch service, the mock included, decodes bodies with this initializer, so a malformed
    /// body is rejected the same way wherever it comes from. The body must be UTF-8 JSON without a
    /// byte order mark, with no duplicate keys, nested at most ``maximumNestingDepth`` deep, and
    /// with every required field present and of the right type.
    ///
    /// ```swift
    /// let config = try ProjectConfig(jsonData: body)
    /// ```
    ///
    /// - Parameter jsonData: The body as served.
    /// - Throws: ``ConfigDecodingError``.
    public init(jsonData: Data) throws(ConfigDecodingError) {
        try JSONSyntaxValidator.validate(jsonData, maximumDepth: Self.maximumNestingDepth)
        do {
            self = try JSONDecoder().decode(ProjectConfig.self, from: jsonData)
        } catch let error as DecodingError {
            throw ConfigDecodingError(error)
        } catch {
            throw ConfigDecodingError(code: .invalidValue, reason: "\(error)")
        }
    }
}

extension ConfigDecodingError {
    /// Translates the decoder's error into one that names the path and the expectation in words.
    init(_ error: DecodingError) {
        switch error {
        case .keyNotFound(let key, let context):
            self.init(
                code: .missingField,
                path: Self.path(context.codingPath + [key]),
                reason: "the required field \"\(key.stringValue)\" is missing"
            )
        case .valueNotFound(let type, let context) where context.codingPath.isEmpty:
            self.init(code: .wrongType, reason: "expected \(Self.describe(type)), found null")
        case .valueNotFound(let type, let context):
            self.init(
                code: .missingField,
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

    /// A coding path as `experiences[0].variations[1].traffic_allocation`.
    static func path(_ codingPath: [any CodingKey]) -> String {
        var text = ""
        for key in codingPath {
            if let index = key.intValue {
                text += "[\(index)]"
            } else {
                text += text.isEmpty ? key.stringValue : ".\(key.stringValue)"
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
