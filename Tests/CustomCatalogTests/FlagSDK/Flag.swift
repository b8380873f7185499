/// One flag of a flagd flag set: its variants, the one served by default, and the targeting rules
/// that may pick another.
///
/// Decoding checks what the flagd schema requires beyond types: the variants of one flag share one
/// type (boolean, string, number or object), and the default variant is one of them.
struct Flag: Sendable, Hashable, Codable {
    /// Whether the flag is served: a disabled flag is treated as absent.
    enum State: String, Sendable, Hashable, Codable {
        case enabled = "ENABLED"
        case disabled = "DISABLED"
    }

    /// The type of a flag's values.
    enum Kind: String, Sendable, Hashable {
        case boolean
        case string
        case number
        case object
    }

    var state: State
    /// The values the flag can resolve to, by variant name.
    var variants: [String: JSONValue]
    /// The variant served when no targeting rule picks one.
    var defaultVariant: String
    /// A JsonLogic rule that picks a variant from the evaluation context, as served.
    var targeting: JSONValue?
    var metadata: [String: JSONValue]?

    private enum CodingKeys: String, CodingKey {
        case state
        case variants
        case defaultVariant
        case targeting
        case metadata
    }

    init(
        state: State = .enabled,
        variants: [String: JSONValue],
        defaultVariant: String,
        targeting: JSONValue? = nil,
        metadata: [String: JSONValue]? = nil
    ) {
        self.state = state
        self.variants = variants
        self.defaultVariant = defaultVariant
        self.targeting = targeting
        self.metadata = metadata
    }

    init(from decoder: any Decoder) throws {
        let container = try decoder.container(keyedBy: CodingKeys.self)
        state = try container.decode(State.self, forKey: .state)
        variants = try container.decode([String: JSONValue].self, forKey: .variants)
        defaultVariant = try container.decode(String.self, forKey: .defaultVariant)
        targeting = try container.decodeIfPresent(JSONValue.self, forKey: .targeting)
        metadata = try container.decodeIfPresent([String: JSONValue].self, forKey: .metadata)

        let sorted = variants.sorted { $0.key < $1.key }
        if let untyped = sorted.first(where: { Self.kind(of: $0.value) == nil }) {
            throw DecodingError.dataCorruptedError(
                forKey: .variants, in: container,
                debugDescription:
                    "variant \"\(untyped.key)\" is \(untyped.value.typeName); expected a boolean, string, number or object"
            )
        }
        if let first = sorted.first, let other = sorted.first(where: { !$0.value.hasSameKind(as: first.value) }) {
            throw DecodingError.dataCorruptedError(
                forKey: .variants, in: container,
                debugDescription:
                    "the variants of one flag share one type: \"\(first.key)\" is \(first.value.typeName), "
                    + "\"\(other.key)\" is \(other.value.typeName)"
            )
        }
        guard variants[defaultVariant] != nil else {
            throw DecodingError.dataCorruptedError(
                forKey: .defaultVariant, in: container,
                debugDescription:
                    "\"\(defaultVariant)\" is not a variant of the flag (\(variants.keys.sorted().joined(separator: ", ")))"
            )
        }
    }

    /// The type of the flag's values.
    var kind: Kind { variants.values.first.flatMap(Self.kind(of:)) ?? .object }

    /// The value served when no targeting rule picks another.
    var defaultValue: JSONValue { variants[defaultVariant] ?? .null }

    fileprivate static func kind(of value: JSONValue) -> Kind? {
        switch value {
        case .bool: .boolean
        case .string: .string
        case .number: .number
        case .object: .object
        case .null, .array: nil
        }
    }
}

extension JSONValue {
    /// Whether two variant values have the same flag type.
    fileprivate func hasSameKind(as other: JSONValue) -> Bool {
        Flag.kind(of: self) == Flag.kind(of: other)
    }
}
