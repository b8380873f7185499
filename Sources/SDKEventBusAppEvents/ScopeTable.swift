/// The scopes of an ``AppEventBusContainer`` and their buses: a hash table whose buckets are handed
/// out under the container's lock and searched outside it.
///
/// Looking a scope up runs the scope's own `hash(into:)` and `==`: user code, which must never run
/// under the lock (it may call back into the container). So the container hashes a scope before it
/// takes the lock, takes out the one bucket that hash selects (its entries, usually one or none:
/// retaining one array), and compares the scope with them once the lock is released. A change
/// installs only if that bucket has not changed since (its stamp, and the table's epoch, which a
/// resize bumps); otherwise the caller looks again. Creating or releasing a scope thus costs the
/// same on average however many scopes there are. (It used to copy the whole registry, outside the
/// lock, for every change: N scopes took time in N², 25 s for 40,000.)
///
/// Entries that leave the table are handed back to the caller, so that their last release, which
/// may run a scope's `deinit`, comes after the lock is released.
///
/// Not generic: each scope is kept in a ``ScopeKey``, which compares it with a scope of its type.
/// Generic code that the app's module calls unspecialized asks the runtime for the metadata of
/// every generic type it touches, each time: a generic table made a lookup 2.5 times as slow as the
/// dictionary it replaced, where this one makes one dynamic call per candidate entry.
struct ScopeTable: Sendable {
    /// A scope's hash value, the scope, and its bus.
    struct Entry: Sendable {
        let hash: Int
        let key: ScopeKey
        let bus: AppEventBus
    }

    /// The entries whose hash values select one bucket, and the stamp of the bucket's last change.
    struct Bucket: Sendable {
        var stamp: UInt64 = 0
        var entries: [Entry] = []
    }

    /// A bucket as a caller took it out: the entries to search outside the lock, and what tells
    /// whether the bucket changed since.
    struct View: Sendable {
        let epoch: UInt64
        let index: Int
        let stamp: UInt64
        let entries: [Entry]

        /// The position of the entry of a scope among ``entries``: runs the scope's `==`, so never
        /// under the lock.
        ///
        /// - Parameters:
        ///   - scope: The address of a scope of the type the table's keys hold.
        ///   - hash: The scope's hash value.
        /// - Returns: The position of its entry, or `nil`.
        func position(of scope: UnsafeRawPointer, hash: Int) -> Int? {
            var position = 0
            while position < entries.count {
                let entry = entries[position]
                if entry.hash == hash, entry.key.matches(scope) { return position }
                position += 1
            }
            return nil
        }
    }

    /// What a change let go of, for the caller to release once the lock is released.
    struct Retired: Sendable {
        var entries: [Entry] = []
        var buckets: [Bucket] = []
    }

    /// The fewest buckets: a power of two.
    static var minimumBucketCount: Int { 8 }

    private var buckets: [Bucket]
    /// 64 minus the base-2 logarithm of the number of buckets: maps a mixed hash value to a bucket.
    private var shift: Int
    /// Bumped when the buckets are rebuilt, which makes every view out of date.
    private var epoch: UInt64 = 0
    /// Bumped by every change; a changed bucket takes its value as its stamp.
    private var clock: UInt64 = 0
    /// The number of scopes.
    private(set) var count = 0
    /// How many entries changes wrote: one per insertion, and every entry a resize moves.
    ///
    /// For tests that check the work per change stays constant on average.
    private(set) var entriesWritten = 0

    init() {
        buckets = Array(repeating: Bucket(), count: Self.minimumBucketCount)
        shift = 64 - Self.minimumBucketCount.trailingZeroBitCount
    }

    /// The number of buckets.
    var bucketCount: Int { buckets.count }

    /// The bucket of a hash value: Fibonacci hashing, so that a hash whose low bits vary little
    /// still spreads over the buckets.
    private static func index(of hash: Int, shift: Int) -> Int {
        // `multipliedReportingOverflow` rather than `&*`: the checker resolves `&*` here to the
        // generic `FixedWidthInteger` operator, which is newer than the floors.
        let product = UInt64(UInt(bitPattern: hash)).multipliedReportingOverflow(by: 0x9E37_79B9_7F4A_7C15)
        return Int(truncatingIfNeeded: product.partialValue >> UInt64(shift))
    }

    /// The bucket that `hash` selects, to search outside the lock.
    func view(of hash: Int) -> View {
        let index = Self.index(of: hash, shift: shift)
        return View(epoch: epoch, index: index, stamp: buckets[index].stamp, entries: buckets[index].entries)
    }

    /// Whether the bucket `view` shows has not changed since it was taken out.
    private func isCurrent(_ view: View) -> Bool {
        view.epoch == epoch && buckets[view.index].stamp == view.stamp
    }

    /// Adds `entry` to the bucket `view` shows, unless that bucket changed since (the caller, who
    /// found no entry of the scope in it, looks again).
    ///
    /// - Returns: Whether it was added, and what a resize let go of.
    mutating func insert(_ entry: Entry, over view: View) -> (inserted: Bool, retired: Retired) {
        guard isCurrent(view) else { return (false, Retired()) }
        buckets[view.index].entries.append(entry)
        touch(view.index)
        count += 1
        entriesWritten += 1
        guard count > buckets.count else { return (true, Retired()) }
        return (true, Retired(buckets: rebuild(bucketCount: buckets.count * 2)))
    }

    /// Removes the entry at `position` of the bucket `view` shows, unless that bucket changed since
    /// (the caller looks again).
    ///
    /// - Returns: Whether it was removed, and the bucket's entries as they were, with what a resize
    ///   let go of.
    mutating func remove(at position: Int, over view: View) -> (removed: Bool, retired: Retired) {
        guard isCurrent(view) else { return (false, Retired()) }
        var retired = Retired(entries: buckets[view.index].entries)
        if retired.entries.count == 1 {
            buckets[view.index].entries = []
        } else {
            buckets[view.index].entries.remove(at: position)
        }
        touch(view.index)
        count -= 1
        if count < buckets.count / 8, buckets.count > Self.minimumBucketCount {
            // Half full after shrinking: the next resize either way is as many changes away.
            let bucketCount = max(Self.minimumBucketCount, (count * 2).nextPowerOfTwo)
            retired.buckets = rebuild(bucketCount: bucketCount)
        }
        return (true, retired)
    }

    /// Every entry, in no particular order.
    func allEntries() -> [Entry] {
        var all: [Entry] = []
        all.reserveCapacity(count)
        for bucket in buckets { all.append(contentsOf: bucket.entries) }
        return all
    }

    /// Empties the table.
    ///
    /// - Returns: What it held, for the caller to release once the lock is released.
    mutating func removeAll() -> [Bucket] {
        count = 0
        return rebuild(bucketCount: Self.minimumBucketCount, moving: false)
    }

    /// Stamps the bucket at `index` as changed.
    private mutating func touch(_ index: Int) {
        clock &+= 1
        buckets[index].stamp = clock
    }

    /// Replaces the buckets by `bucketCount` of them, a power of two, and moves every entry there
    /// unless told not to.
    ///
    /// - Returns: The buckets replaced, for the caller to release once the lock is released.
    private mutating func rebuild(bucketCount: Int, moving: Bool = true) -> [Bucket] {
        var rebuilt = Array(repeating: Bucket(), count: bucketCount)
        let newShift = 64 - bucketCount.trailingZeroBitCount
        if moving {
            for bucket in buckets {
                for entry in bucket.entries {
                    rebuilt[Self.index(of: entry.hash, shift: newShift)].entries.append(entry)
                }
            }
            entriesWritten += count
        }
        epoch &+= 1
        shift = newShift
        swap(&buckets, &rebuilt)
        return rebuilt
    }
}

extension Int {
    /// The least power of two not below the value (1 for 0 and below).
    fileprivate var nextPowerOfTwo: Int {
        self <= 1 ? 1 : 1 << (Int.bitWidth - (self - 1).leadingZeroBitCount)
    }
}
