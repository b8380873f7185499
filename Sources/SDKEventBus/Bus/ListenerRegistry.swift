/// The listeners of one bus: plain synchronous state, guarded by the bus's lock.
///
/// - One bucket per ``SystemEvent`` (an array indexed by the event's ordinal, not a hash map). A
///   bucket lists its listeners in subscription order, so a fire can be delivered by walking one
///   array from the front. An ended subscription leaves a `nil` hole that later ones skip; holes
///   are compacted away once they outnumber the live listeners, so removal is O(1) amortized.
/// - A slot table maps a token to its listener and to that listener's position in its bucket, so
///   `off` never searches. Free slots are reused; the listener id in the token tells a reused slot
///   from the one the token was issued for.
/// - Listener ids increase with every subscription. A fire records the next id as its *mark*:
///   exactly the listeners with a smaller id were subscribed when it was fired.
/// - The latest payload of each replayable event (see ``SystemEvent/replayRule``) is kept, so a
///   late subscription can be handed it.
struct ListenerRegistry {
    typealias Callback = @MainActor @Sendable (EventPayloadValue) -> Void

    /// A listener's row in the slot table.
    struct Slot {
        var listener: Listener?
        var position: Int
    }

    /// The listeners of one event in subscription order, with `nil` for ended subscriptions.
    struct Bucket {
        var entries: [Listener?] = []
        var liveCount = 0
    }

    /// What a subscription produced.
    struct Subscription {
        /// The new listener, or `nil` when the registry is closed.
        var listener: Listener?
        var token: EventListenerToken
        /// A payload fired before the subscription that the new listener must receive (replay).
        var replay: EventPayloadValue?
    }

    /// Below this many entries a bucket is never compacted: scanning a few holes is cheaper.
    static let compactionThreshold = 32

    let busID: UInt64
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

    init(busID: UInt64) {
        self.busID = busID
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
    /// - Returns: The listener, its token and the payload it is owed by replay; no listener (and an
    ///   inert token) once the registry is closed.
    mutating func subscribe(
        _ event: SystemEvent,
        lifetime: SubscriptionLifetime? = nil,
        replayLatest: Bool = false,
        makeCallback: (EventListenerToken) -> Callback
    ) -> Subscription {
        let id = nextID
        nextID += 1
        guard !isClosed else {
            return Subscription(listener: nil, token: EventListenerToken(busID: busID, listenerID: id, slot: -1))
        }
        let slot = freeSlots.popLast() ?? appendSlot()
        let token = EventListenerToken(busID: busID, listenerID: id, slot: slot)
        let listener = Listener(
            id: id,
            slot: slot,
            event: event,
            lifetime: lifetime,
            callback: makeCallback(token)
        )
        let ordinal = event.ordinal
        slots[slot] = Slot(listener: listener, position: buckets[ordinal].entries.count)
        buckets[ordinal].entries.append(listener)
        buckets[ordinal].liveCount += 1
        if lifetime?.ownerID != nil { ownerBoundCount += 1 }

        let replay: EventPayloadValue?
        switch event.replayRule {
        case .sticky: replay = lastReplayable[ordinal]
        case .latestOnRequest: replay = replayLatest ? lastReplayable[ordinal] : nil
        case .none: replay = nil
        }
        return Subscription(listener: listener, token: token, replay: replay)
    }

    /// Remembers a fired payload if its event replays to late listeners.
    mutating func recordFired(_ payload: EventPayloadValue) {
        if payload.event.replayRule != .none {
            lastReplayable[payload.event.ordinal] = payload
        }
    }

    // MARK: Ending subscriptions

    /// Ends the subscription `token` names, if it is one of this bus's live subscriptions.
    ///
    /// - Returns: The removed listener, which the caller ends after unlocking (releasing it may
    ///   run the deinit of objects the callback captured), or `nil` when the token changes nothing.
    mutating func unsubscribe(_ token: EventListenerToken) -> Listener? {
        guard token.busID == busID, slots.indices.contains(token.slot),
            let listener = slots[token.slot].listener, listener.id == token.listenerID
        else { return nil }
        remove(listener)
        return listener
    }

    /// Ends every subscription bound to the owner with identity `ownerID`.
    ///
    /// - Returns: The removed listeners, for the caller to end after unlocking.
    mutating func unsubscribeAll(ownedBy ownerID: ObjectIdentifier) -> [Listener] {
        removeAll { $0.lifetime?.ownerID == ownerID }
    }

    /// Ends the subscriptions whose owner has been deallocated.
    ///
    /// - Returns: The removed listeners, for the caller to end after unlocking.
    mutating func sweepDeadOwners() -> [Listener] {
        guard ownerBoundCount > 0 else { return [] }
        return removeAll { $0.lifetime?.isOwnerGone == true }
    }

    /// Sweeps dead owners when owner-bound subscriptions have doubled since the last sweep, so that
    /// subscriptions whose owners die unnoticed cannot accumulate.
    mutating func sweepDeadOwnersIfDue() -> [Listener] {
        guard ownerBoundCount >= ownerSweepThreshold else { return [] }
        let removed = sweepDeadOwners()
        ownerSweepThreshold = max(64, ownerBoundCount * 2)
        return removed
    }

    /// Whether `listener` is one of this registry's live subscriptions.
    func isLive(_ listener: Listener) -> Bool {
        let slot = Int(listener.slot)
        return slots.indices.contains(slot) && slots[slot].listener === listener
    }

    /// Ends every subscription and accepts no new one.
    ///
    /// - Returns: The removed listeners, for the caller to end after unlocking.
    mutating func close() -> [Listener] {
        isClosed = true
        let removed = slots.compactMap(\.listener)
        buckets = [Bucket](repeating: Bucket(), count: SystemEvent.count)
        slots = []
        freeSlots = []
        lastReplayable = [EventPayloadValue?](repeating: nil, count: SystemEvent.count)
        ownerBoundCount = 0
        return removed
    }

    private mutating func removeAll(where shouldRemove: (Listener) -> Bool) -> [Listener] {
        let doomed = slots.compactMap { $0.listener.flatMap { shouldRemove($0) ? $0 : nil } }
        for listener in doomed { remove(listener) }
        return doomed
    }

    private mutating func appendSlot() -> Int {
        slots.append(Slot(listener: nil, position: 0))
        return slots.count - 1
    }

    private mutating func remove(_ listener: Listener) {
        if listener.lifetime?.ownerID != nil { ownerBoundCount -= 1 }
        let ordinal = listener.event.ordinal
        let slot = Int(listener.slot)
        let position = slots[slot].position
        slots[slot] = Slot(listener: nil, position: 0)
        freeSlots.append(slot)

        buckets[ordinal].entries[position] = nil
        buckets[ordinal].liveCount -= 1
        // Ending the newest subscriptions first (a common pattern) leaves no holes at all.
        while case .some(.none) = buckets[ordinal].entries.last {
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
    }

    /// Closes the holes in one bucket, keeping subscription order, and updates the slot table.
    private mutating func compact(_ ordinal: Int) {
        var live: [Listener?] = []
        live.reserveCapacity(buckets[ordinal].liveCount * 2)
        for case let listener? in buckets[ordinal].entries {
            slots[Int(listener.slot)].position = live.count
            live.append(listener)
        }
        buckets[ordinal].entries = live
    }
}
