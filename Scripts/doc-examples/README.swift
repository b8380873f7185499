// What README.md's examples use without declaring it.

/// An SDK component that keeps the flags, isolated to its own actor.
actor FlagCache {
    func apply(_ payload: FlagPayload) {}
}

let flagCache = FlagCache()
