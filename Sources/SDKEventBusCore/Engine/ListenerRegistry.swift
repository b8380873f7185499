/// The subscriptions of one bus: plain synchronous state, guarded by the bus's lock.
///
/// - One ``ListenerBucket`` per event and delivery lane, created on first use. A bucket lists its
///   subscriptions in subscription order, so a fire is delivered by walking it from the front.
/// - ``routes`` lists, per event, the buckets a fire of it must visit, with their lanes: one per lane
///   that has a live subscription to it. A bucket joins when it gains its first live subscription
///   and leaves when it loses its last, so a fire never looks at lanes that no longer listen.
/// - A slot table maps a token to its entry's bucket and position, so ending a subscription never
///   searches. Free slots are reused; the listener id in the token tells a reused slot from the one
///   it was issued for.
/// - Listener ids increase with every subscription. A fire records the next id as its *mark*:
///   exactly the listeners with a smaller id were subscribed when it was fired.
/// - Subscriptions with an owner or an end hook keep a ``SubscriptionLifetime`` in a side table, so
///   that the common subscription stores nothing for it. Those with an owner are also listed under
///   it, so that ending an owner's subscriptions visits only those: tearing down N owners is linear
///   in N. Every way a subscription ends goes through one place that keeps that list exact.
struct ListenerRegistry {
    /// A subscription's row in the slot table: 8 bytes.
    ///
    /// The subscription's id is its entry's: a token names a live subscription when the entry its
    /// slot points at has the token's id.
    struct Slot {
        /// The subscription's bucket; negative when the row is free.
        var bucket: Int32
        /// The subscription's position in its bucket.
        var position: Int32

        /// A row without a subscription.
        static let free = Slot(bucket: -1, position: -1)

        var isFree: Bool { bucket < 0 }
    }

    /// A subscription that ended: its entry is marked, its slot is free, and the caller decides
    /// when its callback can be released.
    ///
    /// Its bucket is unretained: the registry keeps every bucket while the bus lives, and an
    /// `Ended` lives only under the lock that ended it. (Retaining it cost a retain and a release
    /// per `off`.)
    struct Ended {
        let id: UInt64
        let bucketRef: Unmanaged<ListenerBucket>
        let position: Int
        let lifetime: SubscriptionLifetime?

        var bucket: ListenerBucket { bucketRef.takeUnretainedValue() }
    }

    /// The one handle of a subscription, held weakly: the handle's holders own the subscription.
    struct HandleRecord {
        weak var handle: SubscriptionHandle?
        /// The handle's identity, kept for its `deinit`, when the weak reference is already `nil`.
        let id: ObjectIdentifier
    }

    /// A bucket a fire must visit, and its lane: what a fire reads, without touching the bucket.
    struct Route {
        let bucket: Unmanaged<ListenerBucket>
        let lane: Int
    }

    let busID: UInt64
    /// Every bucket, kept while its lane is in use.
    ///
    /// Routes and queued deliveries refer to them unretained. The buckets of a lane left vacant are
    /// let go (see ``releaseBuckets(ofLane:)``), and their numbers hold
    /// ``ListenerBucket/placeholder`` until a new bucket takes them.
    private(set) var buckets: [ListenerBucket] = []
    /// The numbers of the buckets let go, for the next buckets.
    private var freeBucketNumbers: [Int] = []
    /// Per event, the buckets that hold its live subscriptions.
    private(set) var routes: [[Route]] = []
    /// The bucket of each lane and event: `bucketNumbers[lane][event]`, -1 for none yet.
    private var bucketNumbers: [[Int]] = []
    private var slots: [Slot] = []
    private var freeSlots: [Int32] = []
    private var lifetimes: [Int32: SubscriptionLifetime] = [:]
    /// The slots of the live subscriptions bound to each owner, in no order.
    private var slotsByOwner: [ObjectIdentifier: [Int32]] = [:]
    /// The handle that owns a subscription, for those a ``SubscriptionSet`` stores.
    private var handles: [Int32: HandleRecord] = [:]
    /// How many live subscriptions are bound to an owner, and when to next look for dead owners.
    private var ownerBoundCount = 0
    private var ownerSweepThreshold = 64

    /// The id the next subscription gets, and the mark of a fire made now.
    private(set) var nextID: UInt64 = 0
    /// Whether the bus was shut down: no subscription is accepted any more.
    private(set) var isClosed = false

    init(busID: UInt64, eventCount: Int) {
        self.busID = busID
        routes = Array(repeating: [], count: eventCount)
    }

    /// The number of events the registry routes.
    var eventCount: Int { routes.count }

    /// Makes room for events up to `event`, for buses whose events are not known up front.
    mutating func addEvents(upTo event: Int) {
        while routes.count <= event { routes.append([]) }
    }

    /// The number of live subscriptions to `event`, in every lane.
    func count(for event: Int) -> Int {
        guard routes.indices.contains(event) else { return 0 }
        return routes[event].reduce(0) { $0 + $1.bucket.takeUnretainedValue().liveCount }
    }

    /// The number of live subscriptions.
    var totalCount: Int { slots.count - freeSlots.count }

    /// The entries held for subscriptions, holes included.
    ///
    /// Zero once every subscription has ended and its bucket was tidied. Not the memory (see
    /// ``addFootprint(to:)``).
    var entryCount: Int {
        slots.count + buckets.reduce(0) { $0 + $1.count } + lifetimes.count + handles.count
    }

    /// Adds what the registry holds to `footprint`: computed on demand, for tests.
    func addFootprint(to footprint: inout StorageFootprint) {
        footprint.entries += entryCount
        footprint.liveSubscriptions += totalCount
        footprint.slotCapacity += slots.capacity + freeSlots.capacity
        footprint.sideTableCapacity += lifetimes.capacity + handles.capacity + slotsByOwner.capacity
        footprint.buckets += buckets.count - freeBucketNumbers.count
        footprint.bucketChunkCapacity += buckets.reduce(0) { $0 + $1.chunkCapacity }
        footprint.routes += routes.reduce(0) { $0 + $1.count }
    }

    // MARK: Subscribing

    /// Adds a subscription at the end of the subscription order.
    ///
    /// - Parameters:
    ///   - event: The event subscribed to.
    ///   - lane: The lane that delivers to it.
    ///   - lifetime: The owner and end hook, if any.
    ///   - site: Where it was made, in the bus's ``SubscriptionSites``; 0 for unknown.
    ///   - makeToken: Makes the subscription's token from its listener id and slot.
    ///   - makeCallback: Makes the callback, given the subscription's own token.
    /// - Returns: The token and the entry's bucket, unretained (the registry keeps it); `nil` bucket
    ///   once the registry is closed (the token is then inert).
    mutating func subscribe(
        event: Int,
        lane: Int,
        lifetime: SubscriptionLifetime?,
        site: UInt32 = 0,
        token makeToken: (_ listenerID: UInt64, _ slot: Int) -> EventSubscription,
        makeCallback: (EventSubscription) -> ErasedCallback
    ) -> (token: EventSubscription, bucket: Unmanaged<ListenerBucket>?) {
        let id = nextID
        nextID += 1
        guard !isClosed else { return (makeToken(id, -1), nil) }
        let bucketRef = bucket(event: event, lane: lane)
        let slot = freeSlots.popLast() ?? appendSlot()
        let token = makeToken(id, Int(slot))
        let (number, position, isFirst) = bucketRef._withUnsafeGuaranteedRef { bucket in
            let position = bucket.append(id: id, slot: slot, site: site, callback: makeCallback(token))
            return (bucket.number, position, bucket.liveCount == 1)
        }
        if isFirst { addRoute(to: bucketRef, event: event, lane: lane) }
        slots[Int(slot)] = Slot(bucket: Int32(number), position: Int32(position))
        if let lifetime { bind(slot, to: lifetime) }
        return (token, bucketRef)
    }

    /// Routes fires of `event` to `bucket`, which has its first live subscription.
    ///
    /// Out of line, as is ``bind(_:to:)``: most subscriptions do neither, and the plain `on` + `off`
    /// pair measured 7% more instructions with them inlined.
    @inline(never)
    private mutating func addRoute(to bucket: Unmanaged<ListenerBucket>, event: Int, lane: Int) {
        bucket._withUnsafeGuaranteedRef { $0.routeIndex = routes[event].count }
        routes[event].append(Route(bucket: bucket, lane: lane))
    }

    /// Records the lifetime of the subscription in `slot`, and lists it under its owner.
    @inline(never)
    private mutating func bind(_ slot: Int32, to lifetime: SubscriptionLifetime) {
        if let ownerID = lifetime.ownerID {
            ownerBoundCount += 1
            lifetime.ownerPosition = appendOwned(slot, to: ownerID)
        }
        lifetimes[slot] = lifetime
    }

    /// The bucket of `event` in `lane`, created on first use; unretained, as the registry keeps it.
    @inline(__always)
    private mutating func bucket(event: Int, lane: Int) -> Unmanaged<ListenerBucket> {
        if lane < bucketNumbers.count, event < bucketNumbers[lane].count, bucketNumbers[lane][event] >= 0 {
            return .passUnretained(buckets[bucketNumbers[lane][event]])
        }
        return .passUnretained(addBucket(event: event, lane: lane))
    }

    @inline(never)
    private mutating func addBucket(event: Int, lane: Int) -> ListenerBucket {
        while bucketNumbers.count <= lane { bucketNumbers.append([]) }
        while bucketNumbers[lane].count <= event { bucketNumbers[lane].append(-1) }
        let bucket: ListenerBucket
        if let number = freeBucketNumbers.popLast() {
            bucket = ListenerBucket(number: number, event: event, lane: lane)
            buckets[number] = bucket
        } else {
            bucket = ListenerBucket(number: buckets.count, event: event, lane: lane)
            buckets.append(bucket)
        }
        bucketNumbers[lane][event] = bucket.number
        return bucket
    }

    /// Lets go of the buckets of `lane`, an actor lane left vacant.
    ///
    /// The lane has no subscription, nothing queued and no pass. The buckets are marked retired and
    /// returned, for the caller to keep until the lock is released (an `Ended` of the same locked
    /// section may still point at one); their numbers are free for the next buckets.
    mutating func releaseBuckets(ofLane lane: Int) -> [ListenerBucket] {
        guard lane < bucketNumbers.count else { return [] }
        var released: [ListenerBucket] = []
        for number in bucketNumbers[lane] where number >= 0 {
            let bucket = buckets[number]
            bucket.isRetired = true
            released.append(bucket)
            buckets[number] = ListenerBucket.placeholder
            freeBucketNumbers.append(number)
        }
        bucketNumbers[lane] = []
        return released
    }

    /// Forgets the rows of lanes from `count` on, which the storage has removed.
    mutating func removeLanes(from count: Int) {
        guard bucketNumbers.count > count else { return }
        bucketNumbers.removeLast(bucketNumbers.count - count)
        if bucketNumbers.capacity > 64, bucketNumbers.count * 4 < bucketNumbers.capacity {
            bucketNumbers = Array(shrinking: bucketNumbers)
        }
    }

    /// The live entry `token` names, for a replay owed to it.
    func entry(of token: EventSubscription) -> (bucket: ListenerBucket, entry: UnsafeMutablePointer<ListenerEntry>)? {
        guard let slot = liveSlot(of: token) else { return nil }
        let bucket = buckets[Int(slot.bucket)]
        return (bucket, bucket.entry(at: Int(slot.position)))
    }

    // MARK: Handles

    /// The handle that owns the live subscription `token` names.
    ///
    /// The one already made while it lives, or else `make()`'s, recorded as its owner; `nil` when
    /// the subscription has ended.
    ///
    /// The returned reference is strong: the caller releases it after unlocking, in case it is the
    /// last one (its `deinit` ends the subscription, which takes the lock).
    mutating func handle(of token: EventSubscription, make: () -> SubscriptionHandle) -> SubscriptionHandle? {
        guard liveSlot(of: token) != nil else { return nil }
        let slot = Int32(token.slot)
        // Bound in two steps: `handles[slot]?.handle` (a weak load through an optional chain on a
        // dictionary subscript) crashes in `swift_weakLoadStrong` with the Swift 6.3.1 compiler.
        if let record = handles[slot], let existing = record.handle { return existing }
        let handle = make()
        handles[slot] = HandleRecord(handle: handle, id: ObjectIdentifier(handle))
        return handle
    }

    /// Whether `token` names one of this bus's live subscriptions.
    func isLive(_ token: EventSubscription) -> Bool {
        liveSlot(of: token) != nil
    }

    /// Whether the handle with identity `id` owns the live subscription `token` names.
    func isOwner(_ id: ObjectIdentifier, of token: EventSubscription) -> Bool {
        guard liveSlot(of: token) != nil else { return false }
        return handles[Int32(token.slot)]?.id == id
    }

    // MARK: Ending subscriptions

    /// Ends the subscription `token` names, if it is one of this bus's live subscriptions.
    ///
    /// Marks its entry ended, so that passes skip it, and frees its slot.
    mutating func end(_ token: EventSubscription) -> Ended? {
        guard token.busID == busID, slots.indices.contains(token.slot) else { return nil }
        let row = slots[token.slot]
        guard !row.isFree else { return nil }
        let bucketRef = Unmanaged.passUnretained(buckets[Int(row.bucket)])
        // A slot is reused once free: the entry it points at says whose it is now.
        let isEmpty = bucketRef._withUnsafeGuaranteedRef { bucket -> Bool? in
            let entry = bucket.entry(at: Int(row.position))
            guard entry.pointee.id == token.listenerID else { return nil }
            bucket.markEnded(entry)
            return bucket.liveCount == 0
        }
        guard let isEmpty else { return nil }
        return end(slot: Int32(token.slot), row: row, id: token.listenerID, bucket: bucketRef, isEmpty: isEmpty)
    }

    private mutating func end(slot: Int32) -> Ended {
        let row = slots[Int(slot)]
        let bucketRef = Unmanaged.passUnretained(buckets[Int(row.bucket)])
        let (id, isEmpty) = bucketRef._withUnsafeGuaranteedRef { bucket in
            let entry = bucket.entry(at: Int(row.position))
            bucket.markEnded(entry)
            return (entry.pointee.id, bucket.liveCount == 0)
        }
        return end(slot: slot, row: row, id: id, bucket: bucketRef, isEmpty: isEmpty)
    }

    /// Frees the slot of a subscription whose entry was just marked ended, and stops routing to
    /// its bucket if it was the bucket's last live one.
    @inline(__always)
    private mutating func end(
        slot: Int32, row: Slot, id: UInt64, bucket bucketRef: Unmanaged<ListenerBucket>, isEmpty: Bool
    ) -> Ended {
        if isEmpty { removeRoute(to: bucketRef) }
        slots[Int(slot)] = .free
        freeSlots.append(slot)
        // Most subscriptions have no lifetime: skip hashing the slot when none has.
        let lifetime = lifetimes.isEmpty ? nil : unbind(slot)
        if !handles.isEmpty { handles.removeValue(forKey: slot) }
        if freeSlots.count == slots.count {
            // No subscription left: start over, keeping small tables' capacity for the next ones.
            let keep = slots.count <= 64
            slots.removeAll(keepingCapacity: keep)
            freeSlots.removeAll(keepingCapacity: keep)
            // The side tables too, which a dictionary never shrinks by removing.
            if lifetimes.capacity > 64 { lifetimes = [:] }
            if slotsByOwner.capacity > 64 { slotsByOwner = [:] }
            if handles.capacity > 64 { handles = [:] }
        }
        return Ended(id: id, bucketRef: bucketRef, position: Int(row.position), lifetime: lifetime)
    }

    /// Ends every subscription bound to the owner with identity `ownerID`; visits only those.
    mutating func endAll(ownedBy ownerID: ObjectIdentifier) -> [Ended] {
        guard let owned = slotsByOwner[ownerID] else { return [] }
        return owned.map { end(slot: $0) }
    }

    /// The number of live subscriptions bound to the owner with identity `ownerID`.
    func subscriptionCount(ownedBy ownerID: ObjectIdentifier) -> Int {
        slotsByOwner[ownerID]?.count ?? 0
    }

    /// The number of owners with live subscriptions.
    var ownerCount: Int { slotsByOwner.count }

    /// Forgets the lifetime of the subscription in `slot`, if it has one, and takes it off its
    /// owner's list.
    @inline(never)
    private mutating func unbind(_ slot: Int32) -> SubscriptionLifetime? {
        guard let lifetime = lifetimes.removeValue(forKey: slot) else { return nil }
        if let ownerID = lifetime.ownerID {
            ownerBoundCount -= 1
            removeOwned(at: lifetime.ownerPosition, of: ownerID)
        }
        return lifetime
    }

    /// Lists `slot` under `ownerID`.
    ///
    /// - Returns: Its position in the owner's list.
    @inline(never)
    private mutating func appendOwned(_ slot: Int32, to ownerID: ObjectIdentifier) -> Int32 {
        guard let index = slotsByOwner.index(forKey: ownerID) else {
            slotsByOwner[ownerID] = [slot]
            return 0
        }
        slotsByOwner.values[index].append(slot)
        return Int32(slotsByOwner.values[index].count - 1)
    }

    /// Removes the slot at `position` from the list of `ownerID`: the last one takes its place.
    @inline(never)
    private mutating func removeOwned(at position: Int32, of ownerID: ObjectIdentifier) {
        let index = slotsByOwner.index(forKey: ownerID).unsafelyUnwrapped
        let last = slotsByOwner.values[index].removeLast()
        if Int(position) < slotsByOwner.values[index].count {
            slotsByOwner.values[index][Int(position)] = last
            if let moved = lifetimes[last] { moved.ownerPosition = position }
        } else if slotsByOwner.values[index].isEmpty {
            slotsByOwner.remove(at: index)
        }
    }

    /// Ends every live subscription, and keeps accepting new ones.
    mutating func endAll() -> [Ended] {
        var ended: [Ended] = []
        for (index, slot) in slots.enumerated() where !slot.isFree {
            ended.append(end(slot: Int32(index)))
        }
        return ended
    }

    /// Ends every subscription of `lane`, for a lane whose actor is gone: visits only the lane's
    /// buckets.
    mutating func endAll(inLane lane: Int) -> [Ended] {
        guard lane < bucketNumbers.count else { return [] }
        var ended: [Ended] = []
        for number in bucketNumbers[lane] where number >= 0 {
            let bucket = buckets[number]
            for position in 0..<bucket.count {
                let entry = bucket.entry(at: position)
                if !entry.pointee.hasEnded { ended.append(end(slot: entry.pointee.slot)) }
            }
        }
        return ended
    }

    /// What a sweep of dead owners ended, and the live owners it looked at.
    struct Sweep {
        var ended: [Ended] = []
        /// Live owners, to be released by the caller after unlocking.
        ///
        /// Checking an owner takes a strong reference to it; if another thread drops the owner
        /// meanwhile, this is the last one, and its deinit (user code) must not run under the lock.
        var liveOwners: [any AnyObject & Sendable] = []
    }

    /// Ends the subscriptions whose owner has been deallocated.
    mutating func sweepDeadOwners() -> Sweep {
        guard ownerBoundCount > 0 else { return Sweep() }
        var liveOwners: [any AnyObject & Sendable] = []
        let ended = endAll { lifetime in
            guard lifetime.ownerID != nil else { return false }
            guard let owner = lifetime.owner else { return true }
            liveOwners.append(owner)
            return false
        }
        return Sweep(ended: ended, liveOwners: liveOwners)
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
    mutating func close() -> [Ended] {
        isClosed = true
        var ended: [Ended] = []
        for (index, slot) in slots.enumerated() where !slot.isFree {
            ended.append(end(slot: Int32(index)))
        }
        ownerBoundCount = 0
        return ended
    }

    /// Compacts `bucket`, updating the slots of the entries that move.
    ///
    /// Only while no pass of its lane runs and no callback of it waits to be released.
    mutating func compact(_ bucket: ListenerBucket) {
        bucket.compact { slot, position in
            slots[Int(slot)].position = Int32(position)
        }
    }

    /// Stops routing fires to `bucket`, which has no live subscription left: the last route takes
    /// its place, so that tearing down many lanes' listeners of one event is linear.
    ///
    /// The order of an event's routes is that of no guarantee: each lane delivers on its own.
    private mutating func removeRoute(to bucket: Unmanaged<ListenerBucket>) {
        let (event, index) = bucket._withUnsafeGuaranteedRef { bucket in
            defer { bucket.routeIndex = -1 }
            return (bucket.event, bucket.routeIndex)
        }
        let last = routes[event].removeLast()
        guard index < routes[event].count else { return }
        routes[event][index] = last
        last.bucket._withUnsafeGuaranteedRef { $0.routeIndex = index }
    }

    private func liveSlot(of token: EventSubscription) -> Slot? {
        guard token.busID == busID, slots.indices.contains(token.slot) else { return nil }
        let slot = slots[token.slot]
        // A slot is reused once free: the entry it points at says whose it is now.
        guard !slot.isFree, buckets[Int(slot.bucket)].entry(at: Int(slot.position)).pointee.id == token.listenerID
        else { return nil }
        return slot
    }

    private mutating func endAll(where shouldEnd: (SubscriptionLifetime) -> Bool) -> [Ended] {
        let doomed = lifetimes.filter { shouldEnd($0.value) }.keys.sorted()
        return doomed.map { end(slot: $0) }
    }

    private mutating func appendSlot() -> Int32 {
        slots.append(.free)
        return Int32(slots.count - 1)
    }
}
