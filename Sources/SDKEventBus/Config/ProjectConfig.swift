/// A placeholder; the full model lands with readiness.
public struct ProjectConfig: Sendable, Equatable, Codable {
    /// The account that owns the project.
    public var accountId: String

    /// Creates a configuration.
    ///
    /// - Parameter accountId: The account that owns the project.
    public init(accountId: String) {
        self.accountId = accountId
    }
}
