/// Where each subscription of a bus was made (the file and line of its `on`), interned: an entry
/// keeps the index of its site here in its state word (``ListenerEntry``), and 0 for a subscription
/// made through an entry that passes none (a binary built against 1.0.0, `once`, the app buses).
///
/// Plain state, guarded by the bus's lock. It only grows, so an index read from an entry without
/// the lock stays valid: each distinct `(file, line)` of a bus is one row, however many
/// subscriptions share it. A bus has as many rows as its `on` calls in source, so a linear search
/// does, behind the last site found (a loop that subscribes from one line looks nothing up).
struct SubscriptionSites {
    /// Per site, the address of its file's text and its line.
    private var rows: [UInt] = []
    /// The last site interned, and its index.
    private var last: (file: UInt, line: UInt, index: UInt32) = (0, 0, 0)

    /// The index of a site, added if new; 0 (no site) for a file name that is empty (what the
    /// 1.0.0 entries pass) or not a pointer.
    @inline(__always)
    mutating func index(of file: StaticString, line: UInt) -> UInt32 {
        guard file.hasPointerRepresentation else { return 0 }
        let pointer = UInt(bitPattern: file.utf8Start)
        if pointer == last.file, line == last.line { return last.index }
        return intern(file, line: line)
    }

    @inline(never)
    private mutating func intern(_ file: StaticString, line: UInt) -> UInt32 {
        // Past 2^31 - 1 sites, which no bus has, a site is not kept: the entry's state word holds 31
        // bits. (Counted so on 32-bit platforms too, where `1 << 32` is 0.)
        guard file.utf8CodeUnitCount > 0, rows.count / 2 < Int(Int32.max) - 1 else { return 0 }
        let pointer = UInt(bitPattern: file.utf8Start)
        var index = 0
        while index < rows.count, rows[index] != pointer || rows[index + 1] != line { index += 2 }
        if index == rows.count {
            // Room for 16 sites at once: a bus's first `on` calls do not grow the table one by one.
            if rows.isEmpty { rows.reserveCapacity(32) }
            rows.append(pointer)
            rows.append(line)
        }
        last = (pointer, line, UInt32(truncatingIfNeeded: index / 2 + 1))
        return last.index
    }

    /// The site at `index`, if it names one: its file's text (a `#fileID` literal, which lives as
    /// long as the process) and its line.
    func site(_ index: UInt32) -> (file: UnsafePointer<CChar>, line: UInt)? {
        let row = (Int(index) - 1) * 2
        guard index > 0, row < rows.count, let file = UnsafePointer<CChar>(bitPattern: rows[row]) else { return nil }
        return (file, rows[row + 1])
    }
}
