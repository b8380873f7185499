/// The listeners of one bus: plain synchronous state, guarded by the bus's lock.
///
/// - One bucket per ``SystemEvent`` (an array indexed by the event's ordinal, not a hash map). A
///   bucket lists its listeners in subscription order as inline entries, so a fire is delivered by
///   walking one contiguous array from the front. An ended subscription leaves a hole that later
///   ones skip; holes are compacted away once they outnumber the live entries, so removal is O(1)
///   amortized. A subscription allocates nothing beyond its share of these arrays.
/// - A slot table maps a token to its entry's position, so `off` never searches. Free slots are
///   reused; the listener id in the token tells a reused slot from the one it was issued for.
/// - Every removal increments the bus's cancellation epoch, which the delivery loop reads without
///   the lock to learn that its snapshot may hold ended subscriptions.
/// - Listener ids increase with every subscription. A fire records the next id as its *mark*:
///   exactly the listeners with a smaller id were subscribed when it was fired.
/// - The latest payload of each replayable event (see ``SystemEvent/replayRule``) is kept, so a
///   late subscription can be handed it.
struct ListenerRegistry {
    typealias Callback = @MainActor @Sendable (EventPayloadValue) -> Void

    /// One subscription, stored inline in its bucket.
    struct Entry {
        /// The subscription's rank in the subscription order; never reused.
        let id: UInt64
        /// The subscription's row in the slot table, or -1 for a hole.
        let slot: Int32
        /// The app's callback.
        let callback: Callback
        /// The owner and end hook, for the subscriptions that have them.
        let lifetime: SubscriptionLifetime?

        var isHole: Bool { slot < 0 }

        /// What an ended subscription leaves behind until compaction.
        static let hole = Entry(id: .max, slot: -1, callback: { _ in }, lifetime: nil)
    }

    /// A subscription's row in the slot table: 16 bytes.
    struct Slot {
        /// The id of the subscription in this row; ``free`` when the row is free.
        var id: UInt64
        /// Where the subscription's entry is in its bucket.
        var position: Int32
        /// The ordinal of the subscription's event.
        var ordinal: UInt8

        /// A row without a subscription.
        ///
        /// Ids count up from 0 and never reach its id.
        static let free = Slot(id: .max, position: 0, ordinal: 0)
    }

    /// The listeners of one event in subscription order, with holes for ended subscriptions.
    struct Bucket {
        var entries: [Entry] = []
        var liveCount = 0
    }

    /// What a subscription produced.
    struct Subscription {
        var token: EventListenerToken
        /// Whether the subscription was accepted (`false` once the registry is closed).
        var isLive: Bool
        /// A payload fired before the subscription that the new listener must receive (replay).
        var replay: EventPayloadValue?
    }

    /// A subscription that ended: what the caller runs and releases after unlocking.
    struct Removed {
        let callback: Callback
        let lifetime: SubscriptionLifetime?

        /// Runs the end hook, if any.
        func runEndHook() {
            lifetime?.onEnd?()
        }
    }

    /// Below this many entries a bucket is never compacted: scanning a few holes is cheaper.
    static let compactionThreshold = 32

    let busID: UInt64
    /// Incremented by every removal.
    let cancellationEpoch: AtomicCounter
    private(set) var buckets = [Bucket](repeating: Bucket(), count: SystemEvent.count)
    private var slots: [Slot] = []
    private var freeSlots: [Int] = []
    private var lastReplayable = [EventPayloadValue?](repeating: nil, count: SystemEvent.count)
    /// How many live subscriptions are bound to an owner, and when to next look for dead owners.
    private var ownerBoundCount = 0
    private var ownerSweepThreshold = 64

    /// The id the next subscription gets, and the mark of a fire made now.
    private(set) var nextID: UInt64 = 0
    /// Whether the bus was shut down: no subscription is accepted any more.
    private(set) var isClosed = false

    init(busID: UInt64, cancellationEpoch: AtomicCounter = AtomicCounter()) {
        self.busID = busID
        self.cancellationEpoch = cancellationEpoch
    }

    /// The number of live subscriptions to `event`.
    func count(for event: SystemEvent) -> Int {
        buckets[event.ordinal].liveCount
    }

    /// The number of subscriptions to any event.
    var totalCount: Int { slots.count - freeSlots.count }

    /// The capacity held for listeners; it returns to its baseline when subscriptions end.
    var storageFootprint: Int {
        slots.count + buckets.reduce(0) { $0 + $1.entries.count }
    }

    // MARK: Subscribing

    /// Adds a subscription at the end of the subscription order.
    ///
    /// - Parameters:
    ///   - event: The event subscribed to.
    ///   - lifetime: The owner and end hook, if any.
    ///   - replayLatest: Whether the subscription asks for the latest payload of an event whose
    ///     rule is ``ReplayRule/latestOnRequest``.
    ///   - makeCallback: Makes the callback, given the subscription's own token.
    /// - Returns: The token, whether the subscription was accepted, and the payload it is owed by
    ///   replay. Once the registry is closed the token is inert.
    mutating func subscribe(
        _ event: SystemEvent,
        lifetime: SubscriptionLifetime? = nil,
        replayLatest: Bool = false,
        makeCallback: (EventListenerToken) -> Callback
    ) -> Subscription {
        let id = nextID
        nextID += 1
        guard !isClosed else {
            return Subscription(token: EventListenerToken(busID: busID, listenerID: id, slot: -1), isLive: false)
        }
        let slot = freeSlots.popLast() ?? appendSlot()
        let token = EventListenerToken(busID: busID, listenerID: id, slot: slot)
        let ordinal = event.ordinal
        slots[slot] = Slot(id: id, position: Int32(buckets[ordinal].entries.count), ordinal: UInt8(ordinal))
        buckets[ordinal].entries.append(
            Entry(id: id, slot: Int32(slot), callback: makeCallback(token), lifetime: lifetime)
        )
        buckets[ordinal].liveCount += 1
        if lifetime?.ownerID != nil { ownerBoundCount += 1 }

        let replay: EventPayloadValue?
        switch event.replayRule {
        case .sticky: replay = lastReplayable[ordinal]
        case .latestOnRequest: replay = replayLatest ? lastReplayable[ordinal] : nil
        case .none: replay = nil
        }
        return Subscription(token: token, isLive: true, replay: replay)
    }

    /// Remembers a fired payload if its event replays to late listeners.
    mutating func recordFired(_ payload: EventPayloadValue) {
        if payload.event.replayRule != .none {
            lastReplayable[payload.event.ordinal] = payload
        }
    }

    /// The callback of the live subscription `token` names, for a replay owed to it.
    func callback(of token: EventListenerToken) -> Callback? {
        guard let slot = liveSlot(of: token) else { return nil }
        return buckets[Int(slot.ordinal)].entries[Int(slot.position)].callback
    }

    // MARK: Ending subscriptions

    /// Ends the subscription `token` names, if it is one of this bus's live subscriptions.
    ///
    /// - Returns: What the caller ends after unlocking (releasing the callback may run the deinit
    ///   of objects it captured), or `nil` when the token changes nothing.
    mutating func unsubscribe(_ token: EventListenerToken) -> Removed? {
        guard liveSlot(of: token) != nil else { return nil }
        return remove(slot: token.slot)
    }

    /// Ends every subscription bound to the owner with identity `ownerID`.
    ///
    /// - Returns: The removed subscriptions, for the caller to end after unlocking.
    mutating func unsubscribeAll(ownedBy ownerID: ObjectIdentifier) -> [Removed] {
        removeAll { $0.lifetime?.ownerID == ownerID }
    }

    /// What a sweep of dead owners removed, and the live owners it looked at.
    struct Sweep {
        var removed: [Removed] = []
        /// Live owners, to be released by the caller after unlocking.
        ///
        /// Checking an owner takes a strong reference to it; if another thread drops the owner
        /// meanwhile, this is the last one, and its deinit (user code) must not run under the lock.
        var liveOwners: [any AnyObject & Sendable] = []
    }

    /// Ends the subscriptions whose owner has been deallocated.
    ///
    /// - Returns: The removed subscriptions and the live owners, for the caller to release after
    ///   unlocking.
    mutating func sweepDeadOwners() -> Sweep {
        guard ownerBoundCount > 0 else { return Sweep() }
        var liveOwners: [any AnyObject & Sendable] = []
        let removed = removeAll { entry in
            guard let lifetime = entry.lifetime, lifetime.ownerID != nil else { return false }
            guard let owner = lifetime.owner else { return true }
            liveOwners.append(owner)
            return false
        }
        return Sweep(removed: removed, liveOwners: liveOwners)
    }

    /// Sweeps dead owners when owner-bound subscriptions have doubled since the last sweep, so that
    /// subscriptions whose owners die unnoticed cannot accumulate.
    mutating func sweepDeadOwnersIfDue() -> Sweep {
        guard ownerBoundCount >= ownerSweepThreshold else { return Sweep() }
        let sweep = sweepDeadOwners()
        ownerSweepThreshold = max(64, ownerBoundCount * 2)
        return sweep
    }

    /// Ends every subscription and accepts no new one.
    ///
    /// - Returns: The removed subscriptions, for the caller to end after unlocking.
    mutating func close() -> [Removed] {
        isClosed = true
        let removed = buckets.flatMap { bucket in
            bucket.entries.filter { !$0.isHole }.map { Removed(callback: $0.callback, lifetime: $0.lifetime) }
        }
        buckets = [Bucket](repeating: Bucket(), count: SystemEvent.count)
        slots = []
        freeSlots = []
        lastReplayable = [EventPayloadValue?](repeating: nil, count: SystemEvent.count)
        ownerBoundCount = 0
        if !removed.isEmpty { cancellationEpoch.increment() }
        return removed
    }

    private func liveSlot(of token: EventListenerToken) -> Slot? {
        guard token.busID == busID, slots.indices.contains(token.slot), slots[token.slot].id == token.listenerID,
            token.listenerID != Slot.free.id
        else { return nil }
        return slots[token.slot]
    }

    private mutating func removeAll(where shouldRemove: (Entry) -> Bool) -> [Removed] {
        var doomed: [Int] = []
        for bucket in buckets {
            for entry in bucket.entries where !entry.isHole && shouldRemove(entry) {
                doomed.append(Int(entry.slot))
            }
        }
        return doomed.map { remove(slot: $0) }
    }

    private mutating func appendSlot() -> Int {
        slots.append(.free)
        return slots.count - 1
    }

    private mutating func remove(slot: Int) -> Removed {
        let ordinal = Int(slots[slot].ordinal)
        let position = Int(slots[slot].position)
        let entry = buckets[ordinal].entries[position]
        if entry.lifetime?.ownerID != nil { ownerBoundCount -= 1 }
        cancellationEpoch.increment()
        slots[slot] = .free
        freeSlots.append(slot)

        buckets[ordinal].entries[position] = .hole
        buckets[ordinal].liveCount -= 1
        // Ending the newest subscriptions first (a common pattern) leaves no holes at all.
        while buckets[ordinal].entries.last?.isHole == true {
            buckets[ordinal].entries.removeLast()
        }
        let entryCount = buckets[ordinal].entries.count
        if entryCount > Self.compactionThreshold, entryCount > 2 * buckets[ordinal].liveCount {
            compact(ordinal)
        }
        if freeSlots.count == slots.count {
            // No subscription left: start over, keeping small tables' capacity for the next ones.
            let keep = slots.count <= Self.compactionThreshold
            slots.removeAll(keepingCapacity: keep)
            freeSlots.removeAll(keepingCapacity: keep)
        }
        return Removed(callback: entry.callback, lifetime: entry.lifetime)
    }

    /// Closes the holes in one bucket, keeping subscription order, and updates the slot table.
    private mutating func compact(_ ordinal: Int) {
        var live: [Entry] = []
        live.reserveCapacity(buckets[ordinal].liveCount * 2)
        for entry in buckets[ordinal].entries where !entry.isHole {
            slots[Int(entry.slot)].position = Int32(live.count)
            live.append(entry)
        }
        buckets[ordinal].entries = live
    }
}
