import Foundation

/// A change of a ``CatalogConfigStore``, told to the lifecycles that fill it.
enum StoreChange: Sendable {
    /// A configuration was committed (``ConfigChange/first``, ``ConfigChange/updated``, or
    /// ``ConfigChange/unchanged`` for one equal to the current), `age` seconds after it was fetched;
    /// `nil` when nobody knows when (a bundled configuration).
    case committed(ConfigChange, age: TimeInterval?)
    /// Readiness was decided: the store is ready, with a configuration or degraded.
    case ready
    /// Readiness failed for good with this error.
    case failed(any Error)
    /// The store was shut down.
    case shutDown
}

/// The observers of a store: handlers by id.
struct StoreObservers {
    private var byID: [UInt64: @Sendable (StoreChange) -> Void] = [:]
    private var nextID: UInt64 = 0

    /// The handlers, in no particular order.
    var handlers: [@Sendable (StoreChange) -> Void] { Array(byID.values) }

    /// Adds `handler`; returns its id.
    mutating func add(_ handler: @escaping @Sendable (StoreChange) -> Void) -> UInt64 {
        defer { nextID += 1 }
        byID[nextID] = handler
        return nextID
    }

    /// Removes the handler of `id`.
    mutating func remove(_ id: UInt64) {
        byID[id] = nil
    }
}
