import SDKEventBusConfig

/// A flagd flag set: the configuration of the feature-flag SDK.
///
/// Declaring `RemoteConfig` on a `Codable` type is all it takes: bodies are decoded strictly
/// (no duplicate keys, bounded nesting, typed errors with the JSON path) and cached as JSON.
///
/// ```json
/// {"flags": {"myBoolFlag": {"state": "ENABLED", "variants": {"on": true, "off": false}, "defaultVariant": "on"}}}
/// ```
struct FlagSet: RemoteConfig, Codable, Equatable {
    /// The JSON schema the body names, if any.
    var schema: String?
    /// The flags, by key.
    var flags: [String: Flag]
    /// Targeting fragments that flags share with `{"$ref": "name"}`.
    var evaluators: [String: JSONValue]?
    /// Metadata of the whole set (its id, its version).
    var metadata: [String: JSONValue]?

    private enum CodingKeys: String, CodingKey {
        case schema = "$schema"
        case flags
        case evaluators = "$evaluators"
        case metadata
    }

    init(
        flags: [String: Flag],
        evaluators: [String: JSONValue]? = nil,
        schema: String? = nil,
        metadata: [String: JSONValue]? = nil
    ) {
        self.schema = schema
        self.flags = flags
        self.evaluators = evaluators
        self.metadata = metadata
    }
}
