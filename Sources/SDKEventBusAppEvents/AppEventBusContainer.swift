public import SDKEventBusCore

/// App event buses scoped by component: one ``AppEventBus`` per feature, screen or section, which
/// the container registers, looks up and releases by identifier.
///
/// Releasing a scope ends every subscription of its bus at once (streams finish), so a screen that
/// goes away takes its listeners with it, however many parts of it subscribed, even one that
/// subscribes on another thread while the scope is released. A bus serves one scope: registering
/// a bus that already serves another is refused.
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
    /// before, and compared after (see ``ScopeRegistry``). What leaves the table is released outside
    /// the lock too: its last release runs the scope's `deinit`.
    private let registry = ScopeRegistry()
    private let diagnostics: (@Sendable (BusDiagnostic) -> Void)?

    /// Creates an empty container.
    ///
    /// - Parameter diagnostics: Passed to every bus the container creates.
    public init(diagnostics: (@Sendable (BusDiagnostic) -> Void)? = nil) {
        self.diagnostics = diagnostics
    }

    /// Lets go of the buses without ending their subscriptions: whoever still holds one may go on
    /// using it, or register it in another container.
    deinit {
        registry.freeAll()
    }

    /// The bus of `scope`, created on first use.
    ///
    /// - Parameter scope: The scope's identifier.
    /// - Returns: The bus registered for `scope`.
    public func bus(for scope: Scope) -> AppEventBus {
        let hash = scope.hashValue
        return withUnsafePointer(to: scope) { address in
            registry.bus(hash: hash, scope: address) { (TypedScopeKey(scope), makeBus(for: scope)) }
        }
    }

    /// Registers a bus you made for `scope`.
    ///
    /// A scope has one bus, and a bus serves one scope: a bus registered for a scope, in this
    /// container or another, is refused for any other until its scope is released (or its container
    /// goes away). A released bus may be registered again.
    ///
    /// - Parameters:
    ///   - bus: The bus.
    ///   - scope: The scope's identifier.
    /// - Throws: ``AppEventBusContainerError/alreadyRegistered(scope:)`` when `scope` has a bus
    ///   (naming `scope`; that bus stays registered), or when `bus` serves another scope (naming
    ///   that scope, which keeps it). Nothing changes.
    public func register(_ bus: AppEventBus, for scope: Scope) throws(AppEventBusContainerError) {
        let hash = scope.hashValue
        let description = "\(scope)"
        try withUnsafePointer(to: scope) { (address) throws(AppEventBusContainerError) in
            try registry.register(bus, hash: hash, scope: address, description: description) { TypedScopeKey(scope) }
        }
    }

    /// The bus of `scope`, if one is registered; never creates one.
    ///
    /// - Parameter scope: The scope's identifier.
    /// - Returns: The registered bus, or `nil`.
    public func existingBus(for scope: Scope) -> AppEventBus? {
        let hash = scope.hashValue
        return withUnsafePointer(to: scope) { registry.existingBus(hash: hash, scope: $0) }
    }

    /// Removes the bus of `scope` and ends every subscription on it.
    ///
    /// The bus serves no scope from then on: a subscription made on it later (by code that looked
    /// the bus up before the release, say, on another thread) ends at once, its stream finishing,
    /// and the bus reports it to its diagnostics as
    /// ``/SDKEventBusCore/BusDiagnostic/subscribedToReleasedBus(bus:)``, so that no subscription
    /// outlives its scope unseen. A later ``bus(for:)`` creates a new bus; registering the released
    /// one again, here or in another container, makes it serve that scope.
    ///
    /// - Parameter scope: The scope's identifier.
    /// - Returns: Whether a bus was registered for `scope`.
    @discardableResult
    public func release(_ scope: Scope) -> Bool {
        let hash = scope.hashValue
        return withUnsafePointer(to: scope) { registry.release(hash: hash, scope: $0) }
    }

    /// The scopes that have a bus.
    public var scopes: [Scope] {
        registry.keys.map { unsafeDowncast($0, to: TypedScopeKey<Scope>.self).scope }
    }

    /// The bus `bus(for:)` creates for `scope`, named by its description.
    private func makeBus(for scope: Scope) -> AppEventBus {
        let name = "\(scope)"
        let bus = AppEventBus(name: name, diagnostics: diagnostics)
        // A bus no one else holds yet: the claim succeeds.
        _ = bus.status.claim(for: name)
        return bus
    }

    /// How many entries the table's changes wrote: for tests that check the work per change stays
    /// constant on average.
    var entriesWritten: Int {
        registry.entriesWritten
    }
}

/// Why an ``AppEventBusContainer`` refused a request.
///
/// Not closed: a later major release may add cases (a minor release does not; see Versioning), so a
/// `switch` over it ends with `@unknown default` after its cases, which a binary SDK's
/// library-evolution build requires anyway.
public enum AppEventBusContainerError: Error, Equatable, CustomStringConvertible {
    /// A bus is already registered for the scope that `scope` describes (its `String(describing:)`),
    /// and a scope has one bus while a bus serves one scope: either the scope you registered a bus
    /// for already has one, or the bus you registered already serves the scope named here, in this
    /// container or another. Nothing changed: the registered bus keeps its scope.
    case alreadyRegistered(scope: String)

    /// What went wrong, for logs.
    public var description: String {
        switch self {
        case .alreadyRegistered(let scope):
            "a bus is already registered for scope \(scope), and a scope has one bus, a bus one scope: "
                + "release scope \(scope) before registering another bus for it, or its bus for another scope"
        }
    }
}
