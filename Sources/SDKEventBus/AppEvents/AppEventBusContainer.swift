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
/// buses.bus(for: .checkout).subscribe(to: CartChanged.self, owner: summary) { summary, change in … }
/// buses.bus(for: .checkout).publish(CartChanged(items: 3))
/// buses.release(.checkout)        // every checkout subscription ends
/// ```
///
/// Synchronous and safe to call from any thread.
public final class AppEventBusContainer<Scope: Hashable & Sendable>: Sendable {
    private let buses = LockedValue<[Scope: AppEventBus]>([:])
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
        buses.withLock { buses in
            if let bus = buses[scope] { return bus }
            let bus = AppEventBus(name: "\(scope)", diagnostics: diagnostics)
            buses[scope] = bus
            return bus
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
        let registered = buses.withLock { buses in
            guard buses[scope] == nil else { return false }
            buses[scope] = bus
            return true
        }
        guard registered else { throw .alreadyRegistered(scope: "\(scope)") }
    }

    /// The bus of `scope`, if one is registered; never creates one.
    ///
    /// - Parameter scope: The scope's identifier.
    /// - Returns: The registered bus, or `nil`.
    public func existingBus(for scope: Scope) -> AppEventBus? {
        buses.withLock { $0[scope] }
    }

    /// Removes the bus of `scope` and ends every subscription on it.
    ///
    /// Someone still holding the bus may go on using it; a later ``bus(for:)`` creates a new one.
    ///
    /// - Parameter scope: The scope's identifier.
    /// - Returns: Whether a bus was registered for `scope`.
    @discardableResult
    public func release(_ scope: Scope) -> Bool {
        guard let bus = buses.withLock({ $0.removeValue(forKey: scope) }) else { return false }
        bus.cancelAll()
        return true
    }

    /// The scopes that have a bus.
    public var scopes: [Scope] {
        buses.withLock { Array($0.keys) }
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
