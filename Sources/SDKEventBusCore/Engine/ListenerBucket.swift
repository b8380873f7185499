internal import _SDKEventBusAtomics

/// The subscriptions of one event in one delivery lane, in subscription order.
///
/// Entries live in chunks that never move while a delivery pass may read them. The bucket grows by
/// adding a chunk twice the size of the last one, so appending never copies, and an ended
/// subscription is marked in place, so ending one never copies either. Ended entries are holes
/// until the bucket is compacted, which only happens while no pass of its lane runs. A bucket left
/// without entries frees its chunks.
///
/// A pass reads ``publishedCount``, the chunk table and the entries without the lock; everything
/// else is guarded by the bus's lock.
final class ListenerBucket: @unchecked Sendable {
    // @unchecked: mutated only under the bus's lock; passes read only what the type comment names,
    // which is written before it is published (the count, with release ordering) and not moved
    // while a pass of this bucket's lane runs.

    /// What the registry keeps at the number of a bucket it let go: it has no entry, and its lane
    /// and event are -1.
    static let placeholder = ListenerBucket(number: -1, event: -1, lane: -1)

    /// The capacity of the first chunk; chunk `k` holds `firstChunkCapacity << k` entries.
    static let firstChunkCapacity = 16
    /// Enough chunks for more entries than memory can hold.
    static let maximumChunks = 40

    /// The bucket's index in the registry.
    let number: Int
    /// The event it holds the subscriptions of.
    let event: Int
    /// The lane that delivers to it.
    let lane: Int

    // The bus's lock guards these, so the runtime's exclusivity checks would only cost time.

    /// How many entries there are, holes included.
    @exclusivity(unchecked) private(set) var count = 0
    /// How many entries are live.
    @exclusivity(unchecked) private(set) var liveCount = 0
    /// Whether the registry has let the bucket go with its lane, which was left vacant: it is kept
    /// alive only until the lock is released, and nothing tidies it any more.
    @exclusivity(unchecked) var isRetired = false
    /// The bucket's place in its event's routes while it has live entries; -1 otherwise.
    @exclusivity(unchecked) var routeIndex = -1
    /// Whether the bucket waits in its lane's list of buckets to tidy when the running pass ends.
    @exclusivity(unchecked) var isDueForTidying = false
    /// Whether ended entries outnumber live ones enough to be worth compacting, or none is live.
    var isDueForCompaction: Bool { count > 0 && (liveCount == 0 || (count > 32 && count > 2 * liveCount)) }

    /// `count`, for passes: stored with release ordering after the entry is initialized.
    private let published: UnsafeMutablePointer<UInt64>
    /// The chunk table; chunk `k` is allocated when the bucket first needs it.
    private let chunks: UnsafeMutablePointer<UnsafeMutablePointer<ListenerEntry>?>

    init(number: Int, event: Int, lane: Int) {
        self.number = number
        self.event = event
        self.lane = lane
        published = .allocate(capacity: 1)
        published.initialize(to: 0)
        chunks = .allocate(capacity: Self.maximumChunks)
        chunks.initialize(repeating: nil, count: Self.maximumChunks)
    }

    deinit {
        removeAll()
        published.deallocate()
        chunks.deallocate()
    }

    /// The number of entries a pass may read, with acquire ordering.
    @inline(__always)
    var publishedCount: Int {
        Int(truncatingIfNeeded: sdk_event_bus_load_acquire_64(published))
    }

    // MARK: Positions

    @inline(__always)
    static func chunkCapacity(_ chunk: Int) -> Int { firstChunkCapacity << chunk }

    @inline(__always)
    static func chunkStart(_ chunk: Int) -> Int { firstChunkCapacity * ((1 << chunk) - 1) }

    /// The chunk and offset of a position.
    @inline(__always)
    static func locate(_ position: Int) -> (chunk: Int, offset: Int) {
        // Wrapping arithmetic: a position is never negative and far below any overflow, and the
        // checked form was three times the instructions on every lookup.
        let chunk = (Int.bitWidth &- 1) &- (position / firstChunkCapacity &+ 1).leadingZeroBitCount
        return (chunk, position &- ((firstChunkCapacity &<< chunk) &- firstChunkCapacity))
    }

    /// The entry at `position`, which must be below `count`.
    @inline(__always)
    func entry(at position: Int) -> UnsafeMutablePointer<ListenerEntry> {
        let (chunk, offset) = Self.locate(position)
        return chunks[chunk].unsafelyUnwrapped + offset
    }

    /// Calls `body` with each chunk's entries in order, up to `end` entries, until it returns false.
    ///
    /// For passes: reads the chunk table without the lock.
    @inline(__always)
    func forEachChunk(upTo end: Int, _ body: (UnsafeMutablePointer<ListenerEntry>, Int) -> Bool) {
        var chunk = 0
        var start = 0
        while start < end {
            let capacity = Self.chunkCapacity(chunk)
            guard body(chunks[chunk].unsafelyUnwrapped, min(capacity, end - start)) else { return }
            start += capacity
            chunk += 1
        }
    }

    /// How many entries the allocated chunks hold room for: the memory the bucket keeps.
    ///
    /// Computed on demand, for tests.
    var chunkCapacity: Int {
        var capacity = 0
        for chunk in 0..<Self.maximumChunks where chunks[chunk] != nil { capacity += Self.chunkCapacity(chunk) }
        return capacity
    }

    // MARK: Changes (under the lock)

    /// Appends a live entry and publishes it.
    ///
    /// - Parameters:
    ///   - id: The subscription's rank.
    ///   - slot: Its row in the registry's slot table.
    ///   - site: Where it was made (``SubscriptionSites``), kept in its state word.
    ///   - callback: The subscriber's callback.
    /// - Returns: Its position.
    func append(id: UInt64, slot: Int32, site: UInt32, callback: consuming ErasedCallback) -> Int {
        let position = count
        let (chunk, offset) = Self.locate(position)
        if offset == 0, chunks[chunk] == nil {
            chunks[chunk] = .allocate(capacity: Self.chunkCapacity(chunk))
        }
        (chunks[chunk].unsafelyUnwrapped + offset).initialize(
            to: ListenerEntry(id: id, state: ListenerEntry.liveState(site: site), slot: slot, callback: callback))
        count += 1
        liveCount += 1
        sdk_event_bus_store_release_64(published, UInt64(count))
        return position
    }

    /// Marks `entry`, one of this bucket's, ended; passes skip it from now on.
    @inline(__always)
    func markEnded(_ entry: UnsafeMutablePointer<ListenerEntry>) {
        ListenerEntry.markEnded(entry)
        liveCount -= 1
    }

    /// Takes the callback out of an ended entry, leaving one that retains nothing.
    ///
    /// Only while no pass can be calling it; the caller releases the result after unlocking.
    func takeCallback(at position: Int) -> ErasedCallback {
        // Moved out through the field's own address, not copied (a copy would retain the callback
        // only to release the entry's), and not through an `inout` access to the entry: that
        // access spans the whole entry, whose `id` a pass of the lane may be reading meanwhile.
        let field = ListenerEntry.callback(of: entry(at: position))
        let callback = field.move()
        field.initialize(to: .released)
        return callback
    }

    /// Drops ended entries at the end of the bucket, so that ending the newest subscriptions first
    /// (a common pattern) leaves no holes; frees every chunk once no entry is left.
    ///
    /// Only while no pass of this bucket's lane runs, and after their callbacks were taken.
    func trimTrailingHoles() {
        while count > 0, entry(at: count - 1).pointee.hasEnded {
            entry(at: count - 1).deinitialize(count: 1)
            count -= 1
        }
        if count == 0, chunks[0] != nil {
            removeAll()
        } else {
            sdk_event_bus_store_release_64(published, UInt64(count))
        }
    }

    /// Closes the holes, keeping subscription order, and reports each live entry's new position.
    ///
    /// Only while no pass of this bucket's lane runs, and after every ended entry's callback was
    /// taken. Trims to nothing when no entry is live.
    func compact(moved: (_ slot: Int32, _ position: Int) -> Void) {
        guard liveCount > 0 else {
            removeAll()
            return
        }
        var live: [ListenerEntry] = []
        live.reserveCapacity(liveCount)
        forEachChunk(upTo: count) { entries, entryCount in
            for index in 0..<entryCount where !entries[index].hasEnded {
                live.append(entries[index])
            }
            return true
        }
        removeAll()
        for entry in live {
            moved(entry.slot, append(id: entry.id, slot: entry.slot, site: entry.site, callback: entry.callback))
        }
    }

    /// Drops every entry and frees every chunk: an empty bucket keeps no memory.
    private func removeAll() {
        var chunk = 0
        var start = 0
        while let entries = chunks[chunk] {
            entries.deinitialize(count: max(0, min(Self.chunkCapacity(chunk), count - start)))
            entries.deallocate()
            chunks[chunk] = nil
            start += Self.chunkCapacity(chunk)
            chunk += 1
        }
        count = 0
        liveCount = 0
        sdk_event_bus_store_release_64(published, 0)
    }
}
