public import Foundation

/// A configuration an SDK fetches, stores, caches and compares: the `Config` of a
/// ``LifecycleCatalog``.
///
/// A `Decodable` type only declares the conformance: bodies are then decoded strictly (see
/// ``decode(from:)``).
///
/// ```swift
/// struct FlagSet: RemoteConfig, Codable, Equatable {
///     var flags: [String: Flag]
/// }
/// ```
///
/// The rest is optional, and each adds something:
///
/// - `Equatable`: a refresh that brings a configuration equal (`==`) to the current one fires
///   nothing. Without it, only a body identical to the last one counts as unchanged.
/// - `Encodable`: the cache can keep a configuration whose body the fetch service did not pass on,
///   encoded as JSON. The HTTP service passes every body on, and the cache keeps it verbatim, so a
///   configuration fetched over HTTP needs no encoding.
public protocol RemoteConfig: Sendable {
    /// Decodes a body as served, rejecting anything malformed with an error that says what is wrong
    /// and where.
    ///
    /// Every fetch service, the scripted one included, and the file cache decode with it, so a
    /// malformed body is rejected the same way wherever it comes from. It runs on the caller's
    /// thread; from async code use ``decoded(from:)``, which never runs on the caller's actor.
    ///
    /// - Parameter body: The body as served.
    /// - Returns: The configuration.
    /// - Throws: ``/SDKEventBusWire/JSONDecodingError``.
    static func decode(from body: Data) throws(JSONDecodingError) -> Self

    /// How deep objects and arrays may nest in a body; 128 unless the type says otherwise.
    static var maximumNestingDepth: Int { get }
}

extension RemoteConfig {
    /// 128 levels: real configurations nest about ten (rules within rules); free-form JSON values
    /// need the margin.
    public static var maximumNestingDepth: Int { 128 }

    /// Decodes a body off the caller's actor: the entry point for async code, so that validating
    /// and decoding a large body never blocks the main actor.
    ///
    /// - Parameter body: The body as served.
    /// - Returns: The configuration.
    /// - Throws: ``/SDKEventBusWire/JSONDecodingError``.
    @concurrent
    public static func decoded(from body: Data) async throws(JSONDecodingError) -> Self {
        try decode(from: body)
    }
}

extension RemoteConfig where Self: Decodable {
    /// Decodes a JSON body strictly, then with `JSONDecoder`.
    ///
    /// The body must be UTF-8 JSON (a leading byte order mark is skipped) with no duplicate keys,
    /// nested at most ``maximumNestingDepth`` deep, and with every required field present and of the
    /// right type.
    /// Syntax errors name the line, column and byte; every other error the JSON path and the reason,
    /// also for a number that does not fit its field's type (`1.5` or `99999999999999999999` for an
    /// `Int`) and for an error your own `init(from:)` throws.
    ///
    /// - Parameter body: The body as served.
    /// - Returns: The configuration.
    /// - Throws: ``/SDKEventBusWire/JSONDecodingError``.
    public static func decode(from body: Data) throws(JSONDecodingError) -> Self {
        try JSONSyntaxValidator.validate(body, maximumDepth: maximumNestingDepth)
        // A leading byte order mark, which the validator skipped, is skipped by `JSONDecoder` too.
        do {
            return try JSONDecoder().decode(Self.self, from: body)
        } catch {
            throw JSONDecodingError(decoding: Self.self, from: body, failedWith: error)
        }
    }
}

extension RemoteConfig {
    /// Whether this configuration says the same as `other`, so that applying it changes nothing:
    /// `==` for an `Equatable` configuration; never for another, whose every configuration counts
    /// as a change unless its body is identical to the last one.
    ///
    /// - Parameter other: The configuration in effect.
    /// - Returns: `self == other` for an `Equatable` configuration; `false` otherwise.
    func isSameConfiguration(as other: Self) -> Bool {
        guard let equatable = self as? any Equatable else { return false }
        return Self.isEqual(equatable, to: other)
    }

    /// Whether `other` is a value of `lhs`'s type equal to it: opens the `Equatable` existential.
    private static func isEqual<Value: Equatable>(_ lhs: Value, to other: Self) -> Bool {
        guard let rhs = other as? Value else { return false }
        return lhs == rhs
    }

    /// Encodes the configuration for a cache, in a form ``decode(from:)`` reads back: JSON, with
    /// sorted keys, for an `Encodable` configuration.
    ///
    /// A configuration that is not `Encodable` has no encoding: it is cached only from the body as
    /// served.
    ///
    /// - Returns: The bytes to store.
    /// - Throws: An `EncodingError`, for example for a non-finite number, or
    ///   `EncodingError.invalidValue` when the configuration is not `Encodable`.
    func encodedForCache() throws -> Data {
        guard let encodable = self as? any Encodable else {
            throw EncodingError.invalidValue(
                self,
                .init(
                    codingPath: [],
                    debugDescription: "\(Self.self) is not Encodable: only a body as served can be cached"))
        }
        let encoder = JSONEncoder()
        encoder.outputFormatting = [.sortedKeys]
        return try encoder.encode(encodable)
    }
}
