/// A container's scope, kept by a non-generic ``ScopeTable``: compares itself with a scope of its
/// type, which the caller hands by address.
class ScopeKey: @unchecked Sendable {
    // @unchecked: immutable; the subclass adds only an immutable `Sendable` scope.

    /// Whether the scope at `scope`, of this key's scope type, equals this key's scope: runs the
    /// scope's `==`, user code, so never under a lock.
    func matches(_ scope: UnsafeRawPointer) -> Bool { fatalError("TypedScopeKey overrides it") }
}

/// The key of a scope of type `Scope`.
final class TypedScopeKey<Scope: Hashable & Sendable>: ScopeKey, @unchecked Sendable {
    // @unchecked: immutable, and `Scope` is `Sendable`.

    let scope: Scope

    init(_ scope: Scope) {
        self.scope = scope
    }

    override func matches(_ scope: UnsafeRawPointer) -> Bool {
        scope.assumingMemoryBound(to: Scope.self).pointee == self.scope
    }
}
