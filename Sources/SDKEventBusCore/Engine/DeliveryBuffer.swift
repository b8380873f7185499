/// A growable buffer of deliveries: each a ``DeliveryHeader`` followed by a payload, at a fixed
/// stride, in raw memory the buffer owns.
///
/// A lane keeps two and swaps them: fires append to the pending one under the lock while a pass
/// reads the other without it.
final class DeliveryBuffer: @unchecked Sendable {
    // @unchecked: mutated under the bus's lock, or by the one pass that took it from the lane.

    let layout: PayloadLayout
    /// Where the payload starts within an entry.
    let payloadOffset: Int
    /// The distance between entries.
    let entryStride: Int
    // Guarded by the bus's lock or owned by one pass: the runtime's exclusivity checks would only
    // cost time.
    @exclusivity(unchecked) private(set) var count = 0
    /// How many entries there is room for: the memory the buffer keeps (it never shrinks).
    @exclusivity(unchecked) private(set) var capacity = 0
    @exclusivity(unchecked) private var base: UnsafeMutableRawPointer?

    init(layout: PayloadLayout) {
        self.layout = layout
        let alignment = max(layout.alignment, MemoryLayout<DeliveryHeader>.alignment)
        payloadOffset = (MemoryLayout<DeliveryHeader>.size + layout.alignment - 1) / layout.alignment * layout.alignment
        entryStride = (payloadOffset + max(layout.stride, 1) + alignment - 1) / alignment * alignment
    }

    deinit {
        removeAll()
        base?.deallocate()
    }

    var isEmpty: Bool { count == 0 }

    /// Appends a delivery with a copy of the payload at `payload`.
    func append(_ header: DeliveryHeader, payload: UnsafeRawPointer) {
        if count == capacity { grow() }
        let entry = base.unsafelyUnwrapped + count * entryStride
        entry.initializeMemory(as: DeliveryHeader.self, to: header)
        layout.copy(to: entry + payloadOffset, from: payload)
        count += 1
    }

    /// Appends a payload moved from `payload`, which is left uninitialized, with an empty header:
    /// to keep a payload until it can be destroyed.
    func appendMoving(payload: UnsafeMutableRawPointer) {
        if count == capacity { grow() }
        let entry = base.unsafelyUnwrapped + count * entryStride
        entry.initializeMemory(
            as: DeliveryHeader.self, to: DeliveryHeader(bucket: .passUnretained(Self.noBucket), mark: 0))
        layout.move(to: entry + payloadOffset, from: payload)
        count += 1
    }

    /// The header of the entry at `index`.
    @inline(__always)
    func header(at index: Int) -> UnsafeMutablePointer<DeliveryHeader> {
        (base.unsafelyUnwrapped + index * entryStride).assumingMemoryBound(to: DeliveryHeader.self)
    }

    /// The payload of the entry at `index`.
    @inline(__always)
    func payload(at index: Int) -> UnsafeMutableRawPointer {
        base.unsafelyUnwrapped + index * entryStride + payloadOffset
    }

    /// Destroys every entry, keeping the capacity.
    func removeAll() {
        if !layout.isTrivial {
            for index in 0..<count { layout.destroy(payload(at: index)) }
        }
        count = 0
    }

    /// The bucket of entries that are only kept, never delivered.
    private static let noBucket = ListenerBucket(number: -1, event: -1, lane: -1)

    private func grow() {
        let newCapacity = max(16, capacity * 2)
        let alignment = max(layout.alignment, MemoryLayout<DeliveryHeader>.alignment)
        let newBase = UnsafeMutableRawPointer.allocate(byteCount: newCapacity * entryStride, alignment: alignment)
        if let base {
            if layout.isBitwiseTakable {
                newBase.copyMemory(from: base, byteCount: count * entryStride)
            } else {
                // Headers are plain data; each payload moves the way its type moves.
                for index in 0..<count {
                    let offset = index * entryStride
                    (newBase + offset).copyMemory(from: base + offset, byteCount: MemoryLayout<DeliveryHeader>.size)
                    layout.move(to: newBase + offset + payloadOffset, from: base + offset + payloadOffset)
                }
            }
            base.deallocate()
        }
        base = newBase
        capacity = newCapacity
    }
}
