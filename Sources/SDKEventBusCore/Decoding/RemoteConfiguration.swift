public import Foundation

/// A configuration an SDK fetches, stores, caches and compares: the `Config` of a
/// ``LifecycleCatalogue``.
///
/// A `Decodable` type only declares the conformance: bodies are then decoded strictly (see
/// ``decode(from:)``).
///
/// ```swift
/// struct FlagSet: RemoteConfiguration, Codable, Equatable {
///     var flags: [String: Flag]
/// }
/// ```
///
/// The rest is optional, and each adds something:
///
/// - `Equatable`: a refresh that brings a configuration equal to the current one fires nothing
///   (``isSameConfiguration(as:)``). Without it, only a body identical to the last one counts as
///   unchanged.
/// - `Encodable`: the cache can keep a configuration whose body the fetch service did not pass on
///   (``encodedForCache()``). The HTTP service passes every body on, and the cache keeps it
///   verbatim, so a configuration fetched over HTTP needs no encoding.
public protocol RemoteConfiguration: Sendable {
    /// Decodes a body as served, rejecting anything malformed with an error that says what is wrong
    /// and where.
    ///
    /// Every fetch service, the scripted one included, and the file cache decode with it, so a
    /// malformed body is rejected the same way wherever it comes from. It runs on the caller's
    /// thread; from async code use ``decoded(from:)``, which never runs on the caller's actor.
    ///
    /// - Parameter body: The body as served.
    /// - Returns: The configuration.
    /// - Throws: ``JSONDecodingError``.
    static func decode(from body: Data) throws(JSONDecodingError) -> Self

    /// Encodes the configuration for a cache, in a form ``decode(from:)`` reads back.
    ///
    /// - Returns: The bytes to store.
    /// - Throws: An `EncodingError` when the configuration cannot be encoded (or, for a type that is
    ///   not `Encodable`, because it has no encoding).
    func encodedForCache() throws -> Data

    /// Whether this configuration says the same as `other`, so that applying it changes nothing.
    ///
    /// - Parameter other: The configuration in effect.
    /// - Returns: `==` for an `Equatable` configuration; `false` otherwise.
    func isSameConfiguration(as other: Self) -> Bool

    /// How deep objects and arrays may nest in a body; 128 unless the type says otherwise.
    static var maximumNestingDepth: Int { get }
}

extension RemoteConfiguration {
    /// 128 levels: real configurations nest about ten (rules within rules); free-form JSON values
    /// need the margin.
    public static var maximumNestingDepth: Int { 128 }

    /// No encoding: a configuration that is not `Encodable` is cached only from the body as served.
    ///
    /// - Throws: `EncodingError.invalidValue`, always.
    public func encodedForCache() throws -> Data {
        throw EncodingError.invalidValue(
            self,
            .init(
                codingPath: [], debugDescription: "\(Self.self) is not Encodable: only a body as served can be cached"))
    }

    /// Never the same: without `Equatable` every configuration counts as a change, unless its body
    /// is identical to the last one.
    ///
    /// - Parameter other: The configuration in effect.
    /// - Returns: `false`.
    public func isSameConfiguration(as other: Self) -> Bool { false }

    /// Decodes a body off the caller's actor: the entry point for async code, so that validating
    /// and decoding a large body never blocks the main actor.
    ///
    /// - Parameter body: The body as served.
    /// - Returns: The configuration.
    /// - Throws: ``JSONDecodingError``.
    @concurrent
    public static func decoded(from body: Data) async throws(JSONDecodingError) -> Self {
        try decode(from: body)
    }
}

extension RemoteConfiguration where Self: Decodable {
    /// Decodes a JSON body strictly, then with `JSONDecoder`.
    ///
    /// The body must be UTF-8 JSON without a byte order mark, with no duplicate keys, nested at most
    /// ``maximumNestingDepth`` deep, and with every required field present and of the right type.
    /// Syntax errors name the line, column and byte; every other error the JSON path and the reason,
    /// also for a number that does not fit its field's type (`1.5` or `99999999999999999999` for an
    /// `Int`) and for an error your own `init(from:)` throws.
    ///
    /// - Parameter body: The body as served.
    /// - Returns: The configuration.
    /// - Throws: ``JSONDecodingError``.
    public static func decode(from body: Data) throws(JSONDecodingError) -> Self {
        try JSONSyntaxValidator.validate(body, maximumDepth: maximumNestingDepth)
        do {
            return try JSONDecoder().decode(Self.self, from: body)
        } catch {
            throw JSONDecodingError(decoding: Self.self, from: body, failedWith: error)
        }
    }
}

extension RemoteConfiguration where Self: Equatable {
    /// Whether the two are equal (`==`).
    ///
    /// - Parameter other: The configuration in effect.
    /// - Returns: `self == other`.
    public func isSameConfiguration(as other: Self) -> Bool { self == other }
}

extension RemoteConfiguration where Self: Encodable {
    /// Encodes the configuration as JSON.
    ///
    /// - Returns: The JSON bytes.
    /// - Throws: An `EncodingError`, for example for a non-finite number.
    public func encodedForCache() throws -> Data {
        let encoder = JSONEncoder()
        encoder.outputFormatting = [.sortedKeys]
        return try encoder.encode(self)
    }
}

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
    init<Value: Decodable>(decoding type: Value.Type, from body: Data, failedWith error: any Error) {
        if let error = error as? DecodingError, !Self.needsLocating(error) {
            self.init(error)
            return
        }
        switch PathTracingDecoder.failure(decoding: type, from: body) {
        case let located as Located: self.init(located)
        case let decoding as DecodingError where !Self.needsLocating(decoding): self.init(decoding)
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

    /// Whether `JSONDecoder` reported `error` without saying where: a value it could not convert is
    /// reported as the whole body being corrupt ("The given data was not valid JSON").
    private static func needsLocating(_ error: DecodingError) -> Bool {
        guard case .dataCorrupted(let context) = error else { return false }
        return context.codingPath.isEmpty
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
        if number.isWholeNumber, let value = Double(literal), value.rounded(.towardZero) != value {
            self.init(
                code: .wrongType, path: path, reason: "expected a whole number (\(located.typeName)), found \(literal)")
        } else {
            self.init(
                code: .numberOutOfRange, path: path,
                reason: "the number \(literal.prefix(40)) does not fit in \(located.typeName) (\(number.range))")
        }
    }

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
