/// Any JSON value: the variants, targeting rules, evaluators and metadata of a flagd flag set,
/// kept as they were served.
enum JSONValue: Sendable, Hashable, Codable {
    case null
    case bool(Bool)
    case number(Double)
    case string(String)
    case array([JSONValue])
    case object([String: JSONValue])

    init(from decoder: any Decoder) throws {
        // The body passed the strict syntax check before decoding, so one of these matches.
        let container = try decoder.singleValueContainer()
        if container.decodeNil() {
            self = .null
        } else if let bool = try? container.decode(Bool.self) {
            self = .bool(bool)
        } else if let number = try? container.decode(Double.self) {
            self = .number(number)
        } else if let string = try? container.decode(String.self) {
            self = .string(string)
        } else if let array = try? container.decode([JSONValue].self) {
            self = .array(array)
        } else {
            self = .object(try container.decode([String: JSONValue].self))
        }
    }

    func encode(to encoder: any Encoder) throws {
        var container = encoder.singleValueContainer()
        switch self {
        case .null: try container.encodeNil()
        case .bool(let bool): try container.encode(bool)
        case .number(let number): try container.encode(number)
        case .string(let string): try container.encode(string)
        case .array(let array): try container.encode(array)
        case .object(let object): try container.encode(object)
        }
    }

    /// The JSON type's name, for messages.
    var typeName: String {
        switch self {
        case .null: "null"
        case .bool: "a boolean"
        case .number: "a number"
        case .string: "a string"
        case .array: "an array"
        case .object: "an object"
        }
    }

    /// Every string this value refers to with `{"$ref": "name"}`, at any depth: the shared
    /// evaluators a targeting rule uses.
    var references: Set<String> {
        switch self {
        case .object(let object):
            var names = object.values.reduce(into: Set<String>()) { $0.formUnion($1.references) }
            if case .string(let name) = object["$ref"] { names.insert(name) }
            return names
        case .array(let array):
            return array.reduce(into: Set<String>()) { $0.formUnion($1.references) }
        case .null, .bool, .number, .string:
            return []
        }
    }
}
