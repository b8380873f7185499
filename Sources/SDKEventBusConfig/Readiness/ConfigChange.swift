/// What a store's `setConfig(_:from:fetchedAt:)` did with a configuration.
///
/// Not closed: a later major release may add cases (a minor release does not; see Versioning), so a
/// `switch` over it ends with `@unknown default` after its cases, which a binary SDK's
/// library-evolution build requires anyway.
public enum ConfigChange: Sendable, Equatable, CustomStringConvertible {
    /// It was the first configuration: the store became ready and announced it (the catalog's
    /// ready payload; `SystemEvent.ready` for the built-in one).
    case first
    /// It differed from the current one and is now in effect; the store announced it if the
    /// catalog's ``LifecycleCatalog/configUpdatedPayload(_:)`` returned a payload
    /// (`SystemEvent.configUpdated` for the built-in one).
    case updated
    /// It equalled the current one: nothing changed and nothing fired.
    case unchanged
    /// The store was shut down, or readiness failed: the configuration was ignored and nothing
    /// fired.
    case ignored

    /// What happened, for logs.
    public var description: String {
        switch self {
        case .first: "first configuration, ready announced"
        case .updated: "configuration changed"
        case .unchanged: "configuration unchanged"
        case .ignored: "configuration ignored (shut down or readiness failed)"
        }
    }
}
