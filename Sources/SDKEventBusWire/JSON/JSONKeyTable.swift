/// The keys of every object in one JSON body, for finding a duplicate key in one pass.
///
/// A key is recorded with the object it belongs to, so one table serves the whole body and the
/// same key in sibling objects is no duplicate. Keys compare by their decoded UTF-8 bytes: `"a"`
/// and `"\u0061"` are the same key, while "é" and "e\u{301}" are different keys in JSON even
/// though Swift strings call them equal.
///
/// The table refers to a key without escapes where it lies in the body and copies a decoded key
/// into one shared buffer, so adding a key allocates nothing beyond amortized growth. It is an
/// open-addressing table whose entries keep their hash: a key is hashed once, with the standard
/// library's randomly seeded `Hasher`, so a crafted body cannot force collisions, and growing the
/// table never hashes again.
///
/// Like the validator that holds it, a table is never copied, and says so (`~Copyable`).
struct JSONKeyTable: ~Copyable {
    /// One recorded key.
    private struct Entry {
        var hash: Int
        /// The ordinal of the object the key belongs to.
        var object: Int
        /// Where the key's bytes start: an offset in the body, or `~offset` in `decodedKeys`.
        var start: Int
        var count: Int
    }

    private let body: UnsafeBufferPointer<UInt8>
    private var entries: [Entry] = []
    /// For each slot, `0` when empty, else the index in `entries` plus one.
    ///
    /// The count is a power of two and at least twice the number of entries, so that probe
    /// sequences stay short.
    private var slots: [Int] = []
    /// The bytes of every key that was decoded from escapes, one after another.
    private var decodedKeys: [UInt8] = []

    /// Creates an empty table for the keys of `body`.
    ///
    /// - Parameter body: The body the keys lie in; it must outlive the table.
    init(body: UnsafeBufferPointer<UInt8>) {
        self.body = body
    }

    /// Records a key without escapes, as its bytes lie in the body.
    ///
    /// - Parameters:
    ///   - object: The ordinal of the object the key belongs to.
    ///   - range: The offsets of the key's contents in the body, between its quotes.
    /// - Returns: `false` when `object` already has the key.
    mutating func insert(object: Int, bodyRange range: Range<Int>) -> Bool {
        insert(object: object, start: range.lowerBound, count: range.count)
    }

    /// Records a key that has escapes, in its decoded form.
    ///
    /// - Parameters:
    ///   - object: The ordinal of the object the key belongs to.
    ///   - decode: Appends the key's decoded UTF-8 bytes to the buffer it is given.
    /// - Returns: `false` when `object` already has the key.
    mutating func insert(object: Int, decodingWith decode: (inout [UInt8]) -> Void) -> Bool {
        let offset = decodedKeys.count
        decode(&decodedKeys)
        let inserted = insert(object: object, start: ~offset, count: decodedKeys.count - offset)
        if !inserted { decodedKeys.removeSubrange(offset...) }
        return inserted
    }

    private mutating func insert(object: Int, start: Int, count: Int) -> Bool {
        let hash = withBytes(start: start, count: count) { key in
            var hasher = Hasher()
            hasher.combine(object)
            hasher.combine(bytes: UnsafeRawBufferPointer(key))
            return hasher.finalize()
        }
        if (entries.count + 1) * 2 > slots.count { grow() }
        let mask = slots.count - 1
        var slot = hash & mask
        while slots[slot] != 0 {
            let entry = entries[slots[slot] - 1]
            if entry.hash == hash, entry.object == object, entry.count == count,
                hasSameBytes(entry, start: start, count: count)
            {
                return false
            }
            slot = (slot + 1) & mask
        }
        entries.append(Entry(hash: hash, object: object, start: start, count: count))
        slots[slot] = entries.count
        return true
    }

    /// Doubles the slots and places every entry again by its stored hash.
    private mutating func grow() {
        let capacity = max(16, slots.count * 2)
        let mask = capacity - 1
        var newSlots = [Int](repeating: 0, count: capacity)
        for (index, entry) in entries.enumerated() {
            var slot = entry.hash & mask
            while newSlots[slot] != 0 { slot = (slot + 1) & mask }
            newSlots[slot] = index + 1
        }
        slots = newSlots
    }

    private func hasSameBytes(_ entry: Entry, start: Int, count: Int) -> Bool {
        withBytes(start: entry.start, count: entry.count) { recorded in
            withBytes(start: start, count: count) { key in recorded.elementsEqual(key) }
        }
    }

    private func withBytes<Result>(
        start: Int, count: Int, _ body: (UnsafeBufferPointer<UInt8>) -> Result
    ) -> Result {
        guard start < 0 else { return body(UnsafeBufferPointer(rebasing: self.body[start..<start + count])) }
        let offset = ~start
        return decodedKeys.withUnsafeBufferPointer { decoded in
            body(UnsafeBufferPointer(rebasing: decoded[offset..<offset + count]))
        }
    }
}
