public import Foundation
public import SDKEventBusConfig

extension ProjectConfig: RemoteConfig {
    /// How deep objects and arrays may nest in a configuration body.
    ///
    /// Real configurations nest about ten levels (rules within rules); feature variables carry
    /// free-form JSON, hence the margin.
    public static let maximumNestingDepth = 128

    /// Decodes a configuration body, rejecting anything malformed with an error that says what is
    /// wrong and where.
    ///
    /// The same as ``/SDKEventBusConfig/RemoteConfig/decode(from:)``: every fetch service, the mock included,
    /// decodes bodies this way, so a malformed body is rejected the same way wherever it comes
    /// from. It runs on the caller's thread; from async code prefer
    /// ``/SDKEventBusConfig/RemoteConfig/decoded(from:)``, which never runs on the caller's actor.
    ///
    /// ```swift
    /// let config = try ProjectConfig(jsonData: body)
    /// ```
    ///
    /// - Parameter jsonData: The body as served.
    /// - Throws: ``/SDKEventBusWire/JSONDecodingError``.
    public init(jsonData: Data) throws(JSONDecodingError) {
        self = try Self.decode(from: jsonData)
    }
}
