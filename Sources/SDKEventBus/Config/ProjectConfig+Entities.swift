import SDKEventBusConfig

extension ProjectConfig {
    /// A goal conversions are tracked against.
    public struct Goal: Sendable, Equatable, Codable {
        /// The goal's id.
        public var id: String
        /// The goal's key.
        public var key: String
        /// The goal's name.
        public var name: String
        /// The kind of goal, for example `"revenue"`.
        public var type: String?

        /// Creates a goal.
        ///
        /// - Parameters:
        ///   - id: The goal's id.
        ///   - key: The goal's key.
        ///   - name: The goal's name.
        ///   - type: The kind of goal, for example `"revenue"`.
        public init(id: String, key: String, name: String, type: String? = nil) {
            self.id = id
            self.key = key
            self.name = name
            self.type = type
        }
    }

    /// An audience: visitors that match a set of rules.
    public struct Audience: Sendable, Equatable, Codable {
        /// The audience's id.
        public var id: String
        /// The audience's key.
        public var key: String
        /// The audience's name.
        public var name: String
        /// The kind of audience, for example `"permanent"`.
        public var type: String?

        /// Creates an audience.
        ///
        /// - Parameters:
        ///   - id: The audience's id.
        ///   - key: The audience's key.
        ///   - name: The audience's name.
        ///   - type: The kind of audience, for example `"permanent"`.
        public init(id: String, key: String, name: String, type: String? = nil) {
            self.id = id
            self.key = key
            self.name = name
            self.type = type
        }
    }

    /// A segment visitors can be grouped in for reporting.
    public struct Segment: Sendable, Equatable, Codable {
        /// The segment's id.
        public var id: String
        /// The segment's key.
        public var key: String
        /// The segment's name.
        public var name: String

        /// Creates a segment.
        ///
        /// - Parameters:
        ///   - id: The segment's id.
        ///   - key: The segment's key.
        ///   - name: The segment's name.
        public init(id: String, key: String, name: String) {
            self.id = id
            self.key = key
            self.name = name
        }
    }

    /// A location: where in an app experiences can run.
    public struct Location: Sendable, Equatable, Codable {
        /// The location's id.
        public var id: String
        /// The location's key.
        public var key: String
        /// The location's name.
        public var name: String

        /// Creates a location.
        ///
        /// - Parameters:
        ///   - id: The location's id.
        ///   - key: The location's key.
        ///   - name: The location's name.
        public init(id: String, key: String, name: String) {
            self.id = id
            self.key = key
            self.name = name
        }
    }
}
