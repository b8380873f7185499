/// What ``ConfigStore/setConfig(_:)`` did with a configuration.
public enum ConfigChange: Sendable, Hashable, CustomStringConvertible {
    /// It was the first configuration: the store became ready and fired ``SystemEvent/ready``.
    case first
    /// It differed from the current one: the store fired ``SystemEvent/configUpdated``.
    case updated
    /// It equalled the current one: nothing fired.
    case unchanged
    /// The store was shut down: the configuration was ignored and nothing fired.
    case ignored

    /// What happened, for logs.
    public var description: String {
        switch self {
        case .first: "first configuration, ready fired"
        case .updated: "configuration changed, config.updated fired"
        case .unchanged: "configuration unchanged, no event"
        case .ignored: "store shut down, configuration ignored"
        }
    }
}
