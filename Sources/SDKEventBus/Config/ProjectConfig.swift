import SDKEventBusConfig

/// A project's configuration as the SDK's CDN serves it: the experiences, goals, audiences,
/// segments, locations and features an SDK needs to run.
///
/// It decodes the snake_case wire JSON with a plain `JSONDecoder()`, because its coding keys carry
/// the wire names, so an SDK author's own fetch code can decode it too. Fields the package does not
/// model are ignored. Prefer ``init(jsonData:)``: it also rejects malformed bodies with a
/// ``/SDKEventBusWire/JSONDecodingError`` that says what is wrong and where.
///
/// ```swift
/// let config = try ProjectConfig(jsonData: body)
/// print(config.project.name, config.experiences.map(\.key))
/// ```
///
/// Required on the wire: `account_id`, `project` (with `id` and `name`), `experiences`, and `id`,
/// `key` and `name` on every entity (a project has no key). Lists other than `experiences` may be
/// absent and then decode as empty.
public struct ProjectConfig: Sendable, Equatable, Codable {
    /// The account that owns the project.
    public var accountId: String
    /// The project itself.
    public var project: Project
    /// The project's experiences (A/B tests and other experiments), with their variations.
    public var experiences: [Experience]
    /// The goals conversions are tracked against.
    public var goals: [Goal]
    /// The audiences experiences can target.
    public var audiences: [Audience]
    /// The segments visitors can be grouped in.
    public var segments: [Segment]
    /// The locations where experiences can run.
    public var locations: [Location]
    /// The features experiences can toggle, with their variables.
    public var features: [Feature]

    /// Creates a configuration.
    ///
    /// - Parameters:
    ///   - accountId: The account that owns the project.
    ///   - project: The project itself.
    ///   - experiences: The project's experiences.
    ///   - goals: The goals conversions are tracked against.
    ///   - audiences: The audiences experiences can target.
    ///   - segments: The segments visitors can be grouped in.
    ///   - locations: The locations where experiences can run.
    ///   - features: The features experiences can toggle.
    public init(
        accountId: String,
        project: Project,
        experiences: [Experience] = [],
        goals: [Goal] = [],
        audiences: [Audience] = [],
        segments: [Segment] = [],
        locations: [Location] = [],
        features: [Feature] = []
    ) {
        self.accountId = accountId
        self.project = project
        self.experiences = experiences
        self.goals = goals
        self.audiences = audiences
        self.segments = segments
        self.locations = locations
        self.features = features
    }

    enum CodingKeys: String, CodingKey {
        case accountId = "account_id"
        case project
        case experiences
        case goals
        case audiences
        case segments
        case locations
        case features
    }

    /// Decodes a configuration from its wire form.
    ///
    /// - Parameter decoder: The decoder to read from.
    /// - Throws: `DecodingError` when a required field is missing or has the wrong type.
    public init(from decoder: any Decoder) throws {
        let container = try decoder.container(keyedBy: CodingKeys.self)
        accountId = try container.decode(String.self, forKey: .accountId)
        project = try container.decode(Project.self, forKey: .project)
        experiences = try container.decode([Experience].self, forKey: .experiences)
        goals = try container.decodeIfPresent([Goal].self, forKey: .goals) ?? []
        audiences = try container.decodeIfPresent([Audience].self, forKey: .audiences) ?? []
        segments = try container.decodeIfPresent([Segment].self, forKey: .segments) ?? []
        locations = try container.decodeIfPresent([Location].self, forKey: .locations) ?? []
        features = try container.decodeIfPresent([Feature].self, forKey: .features) ?? []
    }
}

extension ProjectConfig {
    /// The project a configuration belongs to.
    public struct Project: Sendable, Equatable, Codable {
        /// The project's id.
        public var id: String
        /// The project's name.
        public var name: String
        /// The kind of project, for example `"fullstack"`.
        public var type: String?
        /// The project's offset from UTC, as the CDN sends it.
        public var utcOffset: String?

        /// Creates a project.
        ///
        /// - Parameters:
        ///   - id: The project's id.
        ///   - name: The project's name.
        ///   - type: The kind of project.
        ///   - utcOffset: The project's offset from UTC.
        public init(id: String, name: String, type: String? = nil, utcOffset: String? = nil) {
            self.id = id
            self.name = name
            self.type = type
            self.utcOffset = utcOffset
        }

        enum CodingKeys: String, CodingKey {
            case id
            case name
            case type
            case utcOffset = "utc_offset"
        }
    }
}
