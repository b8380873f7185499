/// The listener buckets as the delivery loop last saw them, and the cancellation epoch they match.
///
/// Taking one is an O(1) copy-on-write copy under the bus's lock. While the epoch is unchanged no
/// subscription has ended since, so the snapshot is exact; when it has changed, the loop takes a
/// fresh one and resumes where it was (``resumeIndex(in:from:)``).
struct ListenerSnapshot {
    var buckets: [ListenerRegistry.Bucket]
    var epoch: UInt64

    static let empty = ListenerSnapshot(buckets: [], epoch: 0)

    /// The index of the first listener in `entries` whose id is `id` or greater.
    ///
    /// Ids increase along a bucket, with holes for ended subscriptions, so this is a binary search
    /// that steps over holes.
    static func resumeIndex(in entries: UnsafeBufferPointer<ListenerRegistry.Entry>, from id: UInt64) -> Int {
        var low = 0
        var high = entries.count
        while low < high {
            let middle = (low + high) / 2
            var probe = middle
            while probe < high, entries[probe].isHole { probe += 1 }
            guard probe < high else {
                high = middle
                continue
            }
            if entries[probe].id < id { low = probe + 1 } else { high = middle }
        }
        return low
    }
}
