import SDKEventBusConfig

/// What changed between two project configurations: the keys of the entities added, removed and
/// changed, per kind of entity.
///
/// ```swift
/// let changes = ProjectConfigChanges(from: old, to: new)
/// print(changes.experiences.added, changes.features.changed)
/// ```
///
/// Entities are matched by `key`; one whose key is in both and that differs in any field is
/// changed. Keys are sorted, so equal diffs are equal values.
public struct ProjectConfigChanges: Sendable, Equatable, Codable, CustomStringConvertible {
    /// The keys of one kind of entity that were added, removed and changed.
    public struct Keys: Sendable, Equatable, Codable {
        /// Keys in the new configuration only.
        public var added: [String]
        /// Keys in the previous configuration only.
        public var removed: [String]
        /// Keys in both whose entity differs.
        public var changed: [String]

        /// Creates a set of key changes.
        ///
        /// - Parameters:
        ///   - added: Keys in the new configuration only.
        ///   - removed: Keys in the previous configuration only.
        ///   - changed: Keys in both whose entity differs.
        public init(added: [String] = [], removed: [String] = [], changed: [String] = []) {
            self.added = added
            self.removed = removed
            self.changed = changed
        }

        /// Whether nothing of this kind changed.
        public var isEmpty: Bool { added.isEmpty && removed.isEmpty && changed.isEmpty }

        /// Compares two lists of entities by key.
        init<Entity: Equatable>(_ previous: [Entity], _ current: [Entity], key: (Entity) -> String) {
            let before = Dictionary(previous.map { (key($0), $0) }, uniquingKeysWith: { first, _ in first })
            let after = Dictionary(current.map { (key($0), $0) }, uniquingKeysWith: { first, _ in first })
            added = after.keys.filter { before[$0] == nil }.sorted()
            removed = before.keys.filter { after[$0] == nil }.sorted()
            changed = after.compactMap { key, entity in before[key].map { $0 == entity ? nil : key } ?? nil }.sorted()
        }
    }

    /// Experiences, by key.
    public var experiences: Keys
    /// Features, by key.
    public var features: Keys
    /// Goals, by key.
    public var goals: Keys
    /// Audiences, by key.
    public var audiences: Keys
    /// Segments, by key.
    public var segments: Keys
    /// Locations, by key.
    public var locations: Keys
    /// Whether the account or the project itself changed.
    public var projectChanged: Bool

    /// Compares two configurations.
    ///
    /// - Parameters:
    ///   - previous: The configuration before; `nil` counts every entity as added.
    ///   - current: The configuration now.
    public init(from previous: ProjectConfig?, to current: ProjectConfig) {
        experiences = Keys(previous?.experiences ?? [], current.experiences, key: \.key)
        features = Keys(previous?.features ?? [], current.features, key: \.key)
        goals = Keys(previous?.goals ?? [], current.goals, key: \.key)
        audiences = Keys(previous?.audiences ?? [], current.audiences, key: \.key)
        segments = Keys(previous?.segments ?? [], current.segments, key: \.key)
        locations = Keys(previous?.locations ?? [], current.locations, key: \.key)
        projectChanged = previous.map { $0.accountId != current.accountId || $0.project != current.project } ?? true
    }

    /// Whether nothing changed.
    public var isEmpty: Bool {
        !projectChanged && experiences.isEmpty && features.isEmpty && goals.isEmpty && audiences.isEmpty
            && segments.isEmpty && locations.isEmpty
    }

    /// A line for logs, naming only what changed.
    public var description: String {
        let kinds: [(String, Keys)] = [
            ("experiences", experiences), ("features", features), ("goals", goals), ("audiences", audiences),
            ("segments", segments), ("locations", locations),
        ]
        var parts = projectChanged ? ["project"] : []
        for (name, keys) in kinds where !keys.isEmpty {
            var changes: [String] = []
            if !keys.added.isEmpty { changes.append("+\(keys.added.joined(separator: ","))") }
            if !keys.removed.isEmpty { changes.append("-\(keys.removed.joined(separator: ","))") }
            if !keys.changed.isEmpty { changes.append("~\(keys.changed.joined(separator: ","))") }
            parts.append("\(name) \(changes.joined(separator: " "))")
        }
        return parts.isEmpty ? "no changes" : parts.joined(separator: "; ")
    }
}
