// What README.md's examples use without declaring it.

/// An SDK component that keeps the flags, isolated to its own actor.
actor FlagCache {
    func apply(_ payload: FlagPayload) {}
}

let flagCache = FlagCache()

/// The app's profile screen model.
@MainActor final class ProfileModel: Sendable {
    func reload(for userID: String) {}
}

@MainActor let profile = ProfileModel()
