public import SDKEventBusCore

/// App event buses scoped by component: one ``AppEventBus`` per feature, screen or section, which
/// the container registers, looks up and releases by identifier.
///
/// Releasing a scope ends every subscription of its bus at once (streams finish), so a screen that
/// goes away takes its listeners with it, however many parts of it subscribed.
///
/// ```swift
/// enum Section: Hashable, Sendable { case checkout, profile }
///
/// let buses = AppEventBusContainer<Section>()
/// buses.bus(for: .checkout).on(CartChanged.self, owner: summary) { summary, change in … }
/// buses.bus(for: .checkout).publish(CartChanged(items: 3))
/// buses.release(.checkout)        // every checkout subscription ends
/// ```
///
/// Synchronous and safe to call from any thread. Creating, looking up and releasing a scope take
/// the same time on average however many scopes the container holds.
public final class AppEventBusContainer<Scope: Hashable & Sendable>: Sendable {
    /// The registered buses, by scope.
    ///
    /// Looking a scope up runs the scope's own `hash(into:)` and `==`, and naming a bus its
    /// `description`: user code, which must never run under the lock (it may call back into the
    /// container). So the lock only hands out the one bucket of the table a scope's hash value
    /// selects, and installs a change if no one changed that bucket meanwhile; the scope is hashed
    /// before, and compared after (see ``ScopeTable``). What leaves the table is released outside
    /// the lock too: its last release runs the scope's `deinit`.
    private let registry = LockedValue(ScopeTable())
    private let diagnostics: (@Sendable (BusDiagnostic) -> Void)?

    /// Creates an empty container.
    ///
    /// - Parameter diagnostics: Passed to every bus the container creates.
    public init(diagnostics: (@Sendable (BusDiagnostic) -> Void)? = nil) {
        self.diagnostics = diagnostics
    }

    /// The bus of `scope`, created on first use.
    ///
    /// - Parameter scope: The scope's identifier.
    /// - Returns: The bus registered for `scope`.
    public func bus(for scope: Scope) -> AppEventBus {
        let hash = scope.hashValue
        var created: AppEventBus?
        while true {
            let (view, position) = find(scope, hash: hash)
            if let position { return view.entries[position].bus }
            let bus = created ?? makeBus(for: scope)
            created = bus
            let entry = ScopeTable.Entry(hash: hash, key: TypedScopeKey(scope), bus: bus)
            // What the insertion retired is released here, after unlocking.
            if registry.withLock({ $0.insert(entry, over: view) }).inserted { return bus }
        }
    }

    /// Registers a bus you made for `scope`.
    ///
    /// - Parameters:
    ///   - bus: The bus.
    ///   - scope: The scope's identifier.
    /// - Throws: ``AppEventBusContainerError/alreadyRegistered(scope:)`` when `scope` has a bus;
    ///   that bus stays registered.
    public func register(_ bus: AppEventBus, for scope: Scope) throws(AppEventBusContainerError) {
        let hash = scope.hashValue
        let entry = ScopeTable.Entry(hash: hash, key: TypedScopeKey(scope), bus: bus)
        while true {
            let (view, position) = find(scope, hash: hash)
            guard position == nil else { throw .alreadyRegistered(scope: "\(scope)") }
            if registry.withLock({ $0.insert(entry, over: view) }).inserted { return }
        }
    }

    /// The bus of `scope`, if one is registered; never creates one.
    ///
    /// - Parameter scope: The scope's identifier.
    /// - Returns: The registered bus, or `nil`.
    public func existingBus(for scope: Scope) -> AppEventBus? {
        let (view, position) = find(scope, hash: scope.hashValue)
        return position.map { view.entries[$0].bus }
    }

    /// Removes the bus of `scope` and ends every subscription on it.
    ///
    /// Someone still holding the bus may go on using it; a later ``bus(for:)`` creates a new one.
    ///
    /// - Parameter scope: The scope's identifier.
    /// - Returns: Whether a bus was registered for `scope`.
    @discardableResult
    public func release(_ scope: Scope) -> Bool {
        let hash = scope.hashValue
        while true {
            let (view, position) = find(scope, hash: hash)
            guard let position else { return false }
            // The bucket's entries as they were are released here, after unlocking.
            guard registry.withLock({ $0.remove(at: position, over: view) }).removed else { continue }
            view.entries[position].bus.cancelAll()
            return true
        }
    }

    /// The scopes that have a bus.
    public var scopes: [Scope] {
        registry.withLock { $0.allEntries() }.map { unsafeDowncast($0.key, to: TypedScopeKey<Scope>.self).scope }
    }

    /// The bucket of the table that `hash`, the hash value of `scope`, selects, and the position of
    /// the scope's entry in it: the bucket is taken out under the lock, and searched after, since
    /// the search runs the scope's `==`.
    @inline(__always)
    private func find(_ scope: Scope, hash: Int) -> (view: ScopeTable.View, position: Int?) {
        let view = registry.withLock { $0.view(of: hash) }
        let position = withUnsafePointer(to: scope) { view.position(of: UnsafeRawPointer($0), hash: hash) }
        return (view, position)
    }

    /// The bus `bus(for:)` creates for `scope`, named by its description.
    private func makeBus(for scope: Scope) -> AppEventBus {
        AppEventBus(name: "\(scope)", diagnostics: diagnostics)
    }

    /// How many entries the table's changes wrote: for tests that check the work per change stays
    /// constant on average.
    var entriesWritten: Int {
        registry.withLock { $0.entriesWritten }
    }
}

/// Why an ``AppEventBusContainer`` refused a request.
public enum AppEventBusContainerError: Error, Equatable, CustomStringConvertible {
    /// A bus is already registered for the scope (described by its `String(describing:)`); the
    /// registered bus was kept.
    case alreadyRegistered(scope: String)

    /// What went wrong, for logs.
    public var description: String {
        switch self {
        case .alreadyRegistered(let scope):
            "a bus is already registered for scope \(scope); release it before registering another"
        }
    }
}
