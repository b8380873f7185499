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
/// Synchronous and safe to call from any thread.
public final class AppEventBusContainer<Scope: Hashable & Sendable>: Sendable {
    /// The registered buses, and a version that every change bumps.
    ///
    /// Looking a scope up runs the scope's own `hash(into:)` and `==`, and naming a bus its
    /// `description`: user code, which must never run under the lock (it may call back into the
    /// container). So the lock only hands out the current dictionary and installs a new one if no
    /// one changed it meanwhile; lookups and changes happen on copies, outside it. Replaced
    /// dictionaries are released outside it too: their last release runs the scopes' `deinit`s.
    private struct Registry: Sendable {
        var version: UInt64 = 0
        var buses: [Scope: AppEventBus] = [:]
    }

    private let registry = LockedValue(Registry())
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
        var created: AppEventBus?
        while true {
            let (version, buses) = snapshot()
            if let bus = buses[scope] { return bus }
            let bus = created ?? AppEventBus(name: "\(scope)", diagnostics: diagnostics)
            created = bus
            var updated = buses
            updated[scope] = bus
            if install(&updated, over: version) { return bus }
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
        while true {
            let (version, buses) = snapshot()
            guard buses[scope] == nil else { throw .alreadyRegistered(scope: "\(scope)") }
            var updated = buses
            updated[scope] = bus
            if install(&updated, over: version) { return }
        }
    }

    /// The bus of `scope`, if one is registered; never creates one.
    ///
    /// - Parameter scope: The scope's identifier.
    /// - Returns: The registered bus, or `nil`.
    public func existingBus(for scope: Scope) -> AppEventBus? {
        snapshot().buses[scope]
    }

    /// Removes the bus of `scope` and ends every subscription on it.
    ///
    /// Someone still holding the bus may go on using it; a later ``bus(for:)`` creates a new one.
    ///
    /// - Parameter scope: The scope's identifier.
    /// - Returns: Whether a bus was registered for `scope`.
    @discardableResult
    public func release(_ scope: Scope) -> Bool {
        while true {
            let (version, buses) = snapshot()
            guard buses[scope] != nil else { return false }
            var updated = buses
            guard let bus = updated.removeValue(forKey: scope) else { return false }
            if install(&updated, over: version) {
                bus.cancelAll()
                return true
            }
        }
    }

    /// The scopes that have a bus.
    public var scopes: [Scope] {
        Array(snapshot().buses.keys)
    }

    /// The registered buses as they are now, and their version.
    private func snapshot() -> (version: UInt64, buses: [Scope: AppEventBus]) {
        registry.withLock { ($0.version, $0.buses) }
    }

    /// Installs `buses` unless the registry changed since `version`; on success `buses` holds the
    /// dictionary it replaced, for the caller to release after unlocking.
    ///
    /// - Returns: Whether it was installed; if not, the caller starts again from a new snapshot.
    private func install(_ buses: inout [Scope: AppEventBus], over version: UInt64) -> Bool {
        registry.withLock { registry in
            guard registry.version == version else { return false }
            swap(&registry.buses, &buses)
            registry.version &+= 1
            return true
        }
    }
}

/// Why an ``AppEventBusContainer`` refused a request.
///
/// Not closed: a later major release may add cases (a minor release does not; see Versioning), so a
/// `switch` over it ends with `@unknown default` after its cases, which a binary SDK's
/// library-evolution build requires anyway.
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
