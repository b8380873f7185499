import SDKEventBusConfig

extension ProjectConfig {
    /// An experience: an experiment that splits visitors between variations.
    public struct Experience: Sendable, Equatable, Codable {
        /// The experience's id.
        public var id: String
        /// The experience's key, stable across environments.
        public var key: String
        /// The experience's name.
        public var name: String
        /// The kind of experience, for example `"a/b_fullstack"`.
        public var type: String?
        /// The experience's status, for example `"active"`.
        public var status: String?
        /// The environment the experience runs in, for example `"production"`.
        public var environment: String?
        /// The ids of the audiences the experience targets.
        public var audienceIds: [String]
        /// The ids of the locations where the experience runs.
        public var locationIds: [String]
        /// The ids of the goals the experience tracks.
        public var goalIds: [String]
        /// The variations visitors are split between.
        public var variations: [Variation]

        /// Creates an experience.
        ///
        /// - Parameters:
        ///   - id: The experience's id.
        ///   - key: The experience's key.
        ///   - name: The experience's name.
        ///   - type: The kind of experience.
        ///   - status: The experience's status.
        ///   - environment: The environment the experience runs in.
        ///   - audienceIds: The audiences the experience targets.
        ///   - locationIds: The locations where the experience runs.
        ///   - goalIds: The goals the experience tracks.
        ///   - variations: The variations visitors are split between.
        public init(
            id: String,
            key: String,
            name: String,
            type: String? = nil,
            status: String? = nil,
            environment: String? = nil,
            audienceIds: [String] = [],
            locationIds: [String] = [],
            goalIds: [String] = [],
            variations: [Variation] = []
        ) {
            self.id = id
            self.key = key
            self.name = name
            self.type = type
            self.status = status
            self.environment = environment
            self.audienceIds = audienceIds
            self.locationIds = locationIds
            self.goalIds = goalIds
            self.variations = variations
        }

        enum CodingKeys: String, CodingKey {
            case id
            case key
            case name
            case type
            case status
            case environment
            case audienceIds = "audiences"
            case locationIds = "locations"
            case goalIds = "goals"
            case variations
        }

        /// Decodes an experience from its wire form.
        ///
        /// - Parameter decoder: The decoder to read from.
        /// - Throws: `DecodingError` when a required field is missing or has the wrong type.
        public init(from decoder: any Decoder) throws {
            let container = try decoder.container(keyedBy: CodingKeys.self)
            id = try container.decode(String.self, forKey: .id)
            key = try container.decode(String.self, forKey: .key)
            name = try container.decode(String.self, forKey: .name)
            type = try container.decodeIfPresent(String.self, forKey: .type)
            status = try container.decodeIfPresent(String.self, forKey: .status)
            environment = try container.decodeIfPresent(String.self, forKey: .environment)
            audienceIds = try container.decodeIfPresent([String].self, forKey: .audienceIds) ?? []
            locationIds = try container.decodeIfPresent([String].self, forKey: .locationIds) ?? []
            goalIds = try container.decodeIfPresent([String].self, forKey: .goalIds) ?? []
            variations = try container.decode([Variation].self, forKey: .variations)
        }
    }

    /// One variation of an experience, and the share of traffic it gets.
    public struct Variation: Sendable, Equatable, Codable {
        /// The variation's id.
        public var id: String
        /// The variation's key.
        public var key: String
        /// The variation's name.
        public var name: String
        /// The variation's status, for example `"running"`.
        public var status: String?
        /// The percentage of the experience's traffic this variation gets, from 0 to 100.
        public var trafficAllocation: Double

        /// Creates a variation.
        ///
        /// - Parameters:
        ///   - id: The variation's id.
        ///   - key: The variation's key.
        ///   - name: The variation's name.
        ///   - status: The variation's status.
        ///   - trafficAllocation: The percentage of traffic the variation gets.
        public init(id: String, key: String, name: String, status: String? = nil, trafficAllocation: Double) {
            self.id = id
            self.key = key
            self.name = name
            self.status = status
            self.trafficAllocation = trafficAllocation
        }

        enum CodingKeys: String, CodingKey {
            case id
            case key
            case name
            case status
            case trafficAllocation = "traffic_allocation"
        }
    }
}
