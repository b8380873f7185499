public import Foundation

/// A configuration an SDK fetches, stores, caches and compares: the `Config` of a
/// ``LifecycleCatalogue``.
///
/// A `Codable` type only declares the conformance: bodies are then decoded strictly (see
/// ``decode(from:)``) and cached as JSON.
///
/// ```swift
/// struct FlagSet: RemoteConfiguration, Codable {
///     var flags: [String: Flag]
/// }
/// ```
///
/// Change detection uses `==`: a configuration equal to the current one fires nothing.
public protocol RemoteConfiguration: Sendable, Equatable {
    /// Decodes a body as served, rejecting anything malformed with an error that says what is wrong
    /// and where.
    ///
    /// Every fetch service, the scripted one included, and the file cache decode with it, so a
    /// malformed body is rejected the same way wherever it comes from. It runs on the caller's
    /// thread; from async code use ``decoded(from:)``, which never runs on the caller's actor.
    ///
    /// - Parameter body: The body as served.
    /// - Returns: The configuration.
    /// - Throws: ``ConfigDecodingError``.
    static func decode(from body: Data) throws(ConfigDecodingError) -> Self

    /// Encodes the configuration for a cache, in a form ``decode(from:)`` reads back.
    ///
    /// - Returns: The bytes to store.
    /// - Throws: An `EncodingError` when the configuration cannot be encoded.
    func encodedForCache() throws -> Data

    /// How deep objects and arrays may nest in a body; 128 unless the type says otherwise.
    static var maximumNestingDepth: Int { get }
}

extension RemoteConfiguration {
    /// 128 levels: real configurations nest about ten (rules within rules); free-form JSON values
    /// need the margin.
    public static var maximumNestingDepth: Int { 128 }

    /// Decodes a body off the caller's actor: the entry point for async code, so that validating
    /// and decoding a large body never blocks the main actor.
    ///
    /// - Parameter body: The body as served.
    /// - Returns: The configuration.
    /// - Throws: ``ConfigDecodingError``.
    @concurrent
    public static func decoded(from body: Data) async throws(ConfigDecodingError) -> Self {
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
    /// - Throws: ``ConfigDecodingError``.
    public static func decode(from body: Data) throws(ConfigDecodingError) -> Self {
        try JSONSyntaxValidator.validate(body, maximumDepth: maximumNestingDepth)
        do {
            return try JSONDecoder().decode(Self.self, from: body)
        } catch {
            throw ConfigDecodingError(decoding: Self.self, from: body, failedWith: error)
        }
    }
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
