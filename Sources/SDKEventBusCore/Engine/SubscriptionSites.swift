/// Where each subscription of a bus was made (the file and line of its `on`), interned: a bucket
/// keeps 4 bytes per entry, the index of its site here, and 0 for a subscription made through an
/// entry that passes none (a binary built against 1.0.0, the app buses).
///
/// Plain state, guarded by the bus's lock. It only grows, so an index read from an entry without
/// the lock stays valid: each distinct `(file, line)` of a bus is one row, however many
/// subscriptions share it.
struct SubscriptionSites {
    /// One `on` call site: `#fileID`'s text and `#line`.
    struct Site {
        let file: StaticString
        let line: UInt
    }

    private var rows: [Site] = []
    private var indexes: [Key: UInt32] = [:]
    /// The last site interned: a loop that subscribes from one line looks nothing up.
    private var last = (key: Key(file: 0, line: 0), index: UInt32(0))

    private struct Key: Hashable {
        let file: UInt
        let line: UInt
    }

    /// The index of `site`, added if new; 0 (no site) for a file name that is not a pointer.
    @inline(__always)
    mutating func index(of file: StaticString, line: UInt) -> UInt32 {
        guard file.hasPointerRepresentation else { return 0 }
        let key = Key(file: UInt(bitPattern: file.utf8Start), line: line)
        if key == last.key { return last.index }
        return intern(key, file: file, line: line)
    }

    @inline(never)
    private mutating func intern(_ key: Key, file: StaticString, line: UInt) -> UInt32 {
        let index: UInt32
        if let known = indexes[key] {
            index = known
        } else {
            rows.append(Site(file: file, line: line))
            index = UInt32(truncatingIfNeeded: rows.count)
            indexes[key] = index
        }
        last = (key, index)
        return index
    }

    /// The site at `index`, if it names one.
    func site(_ index: UInt32) -> Site? {
        index > 0 && Int(index) <= rows.count ? rows[Int(index) - 1] : nil
    }
}
