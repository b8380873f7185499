import SDKEventBusCore

/// What an ``AppEventBusContainer`` does, without its scope type: the container hashes a scope and
/// hands its address, and this looks it up in the ``ScopeTable`` behind the lock, creates,
/// registers and releases buses.
///
/// Not generic, so that the work runs as compiled code for every scope type: the generic container
/// only hashes the scope, takes its address, and makes its ``TypedScopeKey`` and bus.
///
/// Every lookup takes the scope's bucket out under the lock and searches it after (the search runs
/// the scope's `==`, user code); a change installs only if the bucket did not change meanwhile, and
/// otherwise the caller looks again. What leaves the table is released after the lock too.
final class ScopeRegistry: Sendable {
    private let table = LockedValue(ScopeTable())

    /// The bucket that `hash` selects, taken out under the lock, and the position of the scope at
    /// `scope` in it, found after.
    private func find(hash: Int, scope: UnsafeRawPointer) -> (view: ScopeTable.View, position: Int?) {
        let view = table.withLock { $0.view(of: hash) }
        return (view, view.position(of: scope, hash: hash))
    }

    /// The bus of the scope at `scope`, whose hash value is `hash`, if one is registered.
    func existingBus(hash: Int, scope: UnsafeRawPointer) -> AppEventBus? {
        let (view, position) = find(hash: hash, scope: scope)
        return position.map { view.entries[$0].bus }
    }

    /// The bus of the scope at `scope`, whose hash value is `hash`: the registered one, or the one
    /// `make` makes (with the scope's key), registered now.
    func bus(hash: Int, scope: UnsafeRawPointer, make: () -> (key: ScopeKey, bus: AppEventBus)) -> AppEventBus {
        var created: ScopeTable.Entry?
        while true {
            let (view, position) = find(hash: hash, scope: scope)
            if let position { return view.entries[position].bus }
            let entry: ScopeTable.Entry
            if let created {
                entry = created
            } else {
                let (key, bus) = make()
                entry = ScopeTable.Entry(hash: hash, key: key, bus: bus)
                created = entry
            }
            // What the insertion retired is released here, after unlocking.
            if table.withLock({ $0.insert(entry, over: view) }).inserted { return entry.bus }
        }
    }

    /// Registers `bus` for the scope at `scope`, whose hash value is `hash` and whose description is
    /// `description`; see ``AppEventBusContainer/register(_:for:)``.
    func register(
        _ bus: AppEventBus,
        hash: Int,
        scope: UnsafeRawPointer,
        description: String,
        key: () -> ScopeKey
    ) throws(AppEventBusContainerError) {
        var entry: ScopeTable.Entry?
        // What the bus was before this container claimed it, to restore if the scope is taken.
        var claimed: AppBusStatus.Membership?
        while true {
            let (view, position) = find(hash: hash, scope: scope)
            guard position == nil else {
                if let claimed { bus.status.unclaim(restoring: claimed) }
                throw .alreadyRegistered(scope: description)
            }
            if claimed == nil {
                switch bus.status.claim(for: description) {
                case .taken(let other): throw .alreadyRegistered(scope: other)
                case .claimed(let previous): claimed = previous
                }
            }
            let made = entry ?? ScopeTable.Entry(hash: hash, key: key(), bus: bus)
            entry = made
            if table.withLock({ $0.insert(made, over: view) }).inserted { return }
        }
    }

    /// Removes the bus of the scope at `scope`, whose hash value is `hash`, marks it released and
    /// ends its subscriptions; see ``AppEventBusContainer/release(_:)``.
    ///
    /// - Returns: Whether a bus was registered for the scope.
    func release(hash: Int, scope: UnsafeRawPointer) -> Bool {
        while true {
            let (view, position) = find(hash: hash, scope: scope)
            guard let position else { return false }
            // The bucket's entries as they were are released here, after unlocking.
            guard table.withLock({ $0.remove(at: position, over: view) }).removed else { continue }
            let bus = view.entries[position].bus
            // Marked first: a subscription the ending below does not see sees the mark.
            bus.status.releasing()
            bus.cancelAll()
            bus.status.released()
            return true
        }
    }

    /// The keys of every registered scope, in no particular order.
    var keys: [ScopeKey] {
        table.withLock { $0.allEntries() }.map(\.key)
    }

    /// Empties the registry and frees its buses, which may then be registered elsewhere: what a
    /// container that goes away does.
    func freeAll() {
        let buckets = table.withLock { $0.removeAll() }
        for bucket in buckets {
            for entry in bucket.entries { entry.bus.status.freed() }
        }
    }

    /// How many entries the table's changes wrote: for tests that check the work per change stays
    /// constant on average.
    var entriesWritten: Int {
        table.withLock { $0.entriesWritten }
    }
}
