import SDKEventBusConfig

extension ProjectConfig {
    /// A feature that experiences can toggle, with the variables it exposes.
    public struct Feature: Sendable, Equatable, Codable {
        /// The feature's id.
        public var id: String
        /// The feature's key.
        public var key: String
        /// The feature's name.
        public var name: String
        /// The variables the feature exposes.
        public var variables: [Variable]

        /// Creates a feature.
        ///
        /// - Parameters:
        ///   - id: The feature's id.
        ///   - key: The feature's key.
        ///   - name: The feature's name.
        ///   - variables: The variables the feature exposes.
        public init(id: String, key: String, name: String, variables: [Variable] = []) {
            self.id = id
            self.key = key
            self.name = name
            self.variables = variables
        }

        /// Decodes a feature from its wire form.
        ///
        /// - Parameter decoder: The decoder to read from.
        /// - Throws: `DecodingError` when a required field is missing or has the wrong type.
        public init(from decoder: any Decoder) throws {
            let container = try decoder.container(keyedBy: CodingKeys.self)
            id = try container.decode(String.self, forKey: .id)
            key = try container.decode(String.self, forKey: .key)
            name = try container.decode(String.self, forKey: .name)
            variables = try container.decodeIfPresent([Variable].self, forKey: .variables) ?? []
        }
    }

    /// A variable a feature exposes, and its type.
    public struct Variable: Sendable, Equatable, Codable {
        /// The variable's key.
        public var key: String
        /// The variable's type, for example `"boolean"`, `"string"`, `"integer"`, `"float"` or `"json"`.
        public var type: String

        /// Creates a variable.
        ///
        /// - Parameters:
        ///   - key: The variable's key.
        ///   - type: The variable's type.
        public init(key: String, type: String) {
            self.key = key
            self.type = type
        }
    }
}
