/// A queue of deliveries: each a ``DeliveryHeader`` followed by a payload, at a fixed stride, in
/// fixed-size segments of raw memory the buffer owns.
///
/// A lane keeps two and swaps them: fires append to the pending one under the lock while a pass
/// reads the other without it.
///
/// Segments, not one block that doubles: growing adds a segment (about 8 KB) and never copies or
/// moves an entry, so a burst does not copy its whole backlog under the lock at each doubling; and
/// emptying the buffer frees every segment but the first, so the memory a burst took returns as soon
/// as its batch is delivered, while a lane with a steady trickle of fires reuses its one segment.
final class DeliveryBuffer: @unchecked Sendable {
    // @unchecked: mutated under the bus's lock, or by the one pass that took it from the lane.

    /// The bytes a segment aims at: a few pages, so that a segment is a cheap allocation and an
    /// idle lane keeps little.
    static let segmentBytes = 8 * 1_024

    let layout: PayloadLayout
    /// Where the payload starts within an entry.
    let payloadOffset: Int
    /// The distance between entries.
    let entryStride: Int
    /// Entries per segment, `1 << segmentShift`: a power of two, at least 16, that fits
    /// ``segmentBytes`` when the stride allows.
    let segmentShift: Int
    private let alignment: Int
    // Guarded by the bus's lock or owned by one pass: the runtime's exclusivity checks would only
    // cost time.
    @exclusivity(unchecked) private(set) var count = 0
    /// The segments' base addresses, in order; `segmentTableCapacity` rows, `segmentCount` used.
    @exclusivity(unchecked) private var segments: UnsafeMutablePointer<UnsafeMutableRawPointer>?
    @exclusivity(unchecked) private var segmentCount = 0
    @exclusivity(unchecked) private var segmentTableCapacity = 0

    init(layout: PayloadLayout) {
        self.layout = layout
        alignment = max(layout.alignment, MemoryLayout<DeliveryHeader>.alignment)
        payloadOffset = (MemoryLayout<DeliveryHeader>.size + layout.alignment - 1) / layout.alignment * layout.alignment
        entryStride = (payloadOffset + max(layout.stride, 1) + alignment - 1) / alignment * alignment
        var shift = 4
        while (entryStride << (shift + 1)) <= Self.segmentBytes { shift += 1 }
        segmentShift = shift
    }

    deinit {
        removeAll()
        releaseSegments(keeping: 0)
    }

    var isEmpty: Bool { count == 0 }

    /// How many entries the allocated segments hold room for: the memory the buffer keeps.
    var capacity: Int { segmentCount << segmentShift }

    /// Appends a delivery with a copy of the payload at `payload`.
    @inline(__always)
    func append(_ header: DeliveryHeader, payload: UnsafeRawPointer) {
        if count == capacity { addSegment() }
        let entry = entry(at: count)
        entry.initializeMemory(as: DeliveryHeader.self, to: header)
        layout.copy(to: entry + payloadOffset, from: payload)
        count += 1
    }

    /// Appends a payload moved from `payload`, which is left uninitialized, with an empty header:
    /// to keep a payload until it can be destroyed.
    func appendMoving(payload: UnsafeMutableRawPointer) {
        if count == capacity { addSegment() }
        let entry = entry(at: count)
        entry.initializeMemory(
            as: DeliveryHeader.self, to: DeliveryHeader(bucket: .passUnretained(Self.noBucket), mark: 0))
        layout.move(to: entry + payloadOffset, from: payload)
        count += 1
    }

    /// The entry at `index`: its header, then at ``payloadOffset`` its payload.
    @inline(__always)
    func entry(at index: Int) -> UnsafeMutableRawPointer {
        segments.unsafelyUnwrapped[index &>> segmentShift] + (index & ((1 &<< segmentShift) &- 1)) * entryStride
    }

    /// The payload of the entry at `index`.
    @inline(__always)
    func payload(at index: Int) -> UnsafeMutableRawPointer {
        entry(at: index) + payloadOffset
    }

    /// Destroys every entry, and frees every segment but the first: a burst's memory returns once
    /// its batch is delivered.
    ///
    /// Outside the lock for a buffer a pass took (destroying a payload may run user code, and
    /// freeing many segments takes time).
    func removeAll() {
        if !layout.isTrivial {
            for index in 0..<count { layout.destroy(payload(at: index)) }
        }
        count = 0
        if segmentCount > 1 { releaseSegments(keeping: 1) }
    }

    /// Frees every segment and the segment table.
    ///
    /// For the buffers of a lane left vacant, which keeps no memory for the next actor. The buffer
    /// must be empty; it allocates again on its next append.
    func releaseMemory() {
        releaseSegments(keeping: 0)
    }

    /// The bucket of entries that are only kept, never delivered.
    private static let noBucket = ListenerBucket(number: -1, event: -1, lane: -1)

    private func addSegment() {
        if segmentCount == segmentTableCapacity {
            let newCapacity = max(4, segmentTableCapacity * 2)
            let table = UnsafeMutablePointer<UnsafeMutableRawPointer>.allocate(capacity: newCapacity)
            if let segments {
                table.moveInitialize(from: segments, count: segmentCount)
                segments.deallocate()
            }
            segments = table
            segmentTableCapacity = newCapacity
        }
        let segment = UnsafeMutableRawPointer.allocate(
            byteCount: entryStride << segmentShift, alignment: alignment)
        (segments.unsafelyUnwrapped + segmentCount).initialize(to: segment)
        segmentCount += 1
    }

    /// Frees the segments after the first `keep` (the buffer must be empty), and the segment table
    /// too when it has grown past a few rows.
    private func releaseSegments(keeping keep: Int) {
        guard let table = segments else { return }
        for index in keep..<max(keep, segmentCount) { table[index].deallocate() }
        segmentCount = min(segmentCount, keep)
        guard segmentTableCapacity > 4 || segmentCount == 0 else { return }
        if segmentCount == 0 {
            table.deallocate()
            segments = nil
            segmentTableCapacity = 0
        } else {
            let small = UnsafeMutablePointer<UnsafeMutableRawPointer>.allocate(capacity: 4)
            small.moveInitialize(from: table, count: segmentCount)
            table.deallocate()
            segments = small
            segmentTableCapacity = 4
        }
    }
}
