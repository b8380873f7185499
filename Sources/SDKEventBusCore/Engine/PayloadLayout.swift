/// How to copy, move and destroy the payloads of one bus: all the engine knows of their type.
///
/// The engine is not generic: it keeps payloads as raw bytes in its queues and hands passes their
/// address. Generic code would run unspecialized for every catalogue declared in another module
/// (and, called from another module, for the built-in one too), paying metadata lookups on every
/// fire; a layout made once per bus costs one indirect call per copy instead.
///
/// Moves go through the type's own move unless the type is bitwise-takable. Most Swift values are
/// (a class reference, a `String`, an array), and a byte copy is then their move; but a value that
/// holds a `weak` reference (to an Objective-C object on Apple platforms, to any object on Linux)
/// is not, and copying its bytes to a new address would leave the runtime's record of it behind.
struct PayloadLayout: Sendable {
    /// The payload's size: the bytes a copy reads (none for an empty type such as `Void`, whose
    /// address may not be readable).
    let size: Int
    /// The payload's stride.
    let stride: Int
    /// The payload's alignment.
    let alignment: Int
    /// Whether the payload is plain bytes: copied with `memcpy`, destroyed by doing nothing.
    let isTrivial: Bool
    /// Whether a byte copy to a new address, forgetting the old one, moves the payload.
    let isBitwiseTakable: Bool
    /// Initializes the uninitialized memory at the first address with a copy of the payload at the
    /// second.
    let copy: @Sendable (UnsafeMutableRawPointer, UnsafeRawPointer) -> Void
    /// Moves the payload at the second address into the uninitialized memory at the first, leaving
    /// the second uninitialized: the type's own move.
    let move: @Sendable (UnsafeMutableRawPointer, UnsafeMutableRawPointer) -> Void
    /// Deinitializes the payload at the address.
    let destroy: @Sendable (UnsafeMutableRawPointer) -> Void

    /// The layout of `Payload`.
    static func of<Payload>(_: Payload.Type) -> PayloadLayout {
        PayloadLayout(
            size: MemoryLayout<Payload>.size,
            stride: MemoryLayout<Payload>.stride,
            alignment: MemoryLayout<Payload>.alignment,
            isTrivial: _isPOD(Payload.self),
            isBitwiseTakable: _isBitwiseTakable(Payload.self),
            copy: { target, source in
                target.initializeMemory(as: Payload.self, to: source.assumingMemoryBound(to: Payload.self).pointee)
            },
            move: { target, source in
                target.assumingMemoryBound(to: Payload.self).moveInitialize(
                    from: source.assumingMemoryBound(to: Payload.self), count: 1)
            },
            destroy: { payload in
                payload.assumingMemoryBound(to: Payload.self).deinitialize(count: 1)
            }
        )
    }

    /// Copies the payload at `source` into uninitialized memory at `target`.
    @inline(__always)
    func copy(to target: UnsafeMutableRawPointer, from source: UnsafeRawPointer) {
        if isTrivial {
            target.copyMemory(from: source, byteCount: size)
        } else {
            copy(target, source)
        }
    }

    /// Moves the payload at `source` into uninitialized memory at `target`; `source` is left
    /// uninitialized.
    @inline(__always)
    func move(to target: UnsafeMutableRawPointer, from source: UnsafeMutableRawPointer) {
        if isBitwiseTakable {
            target.copyMemory(from: source, byteCount: size)
        } else {
            move(target, source)
        }
    }

    /// Deinitializes the payload at `payload`.
    @inline(__always)
    func destroy(_ payload: UnsafeMutableRawPointer) {
        if !isTrivial { destroy(payload) }
    }
}

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

/// What a delivery says besides its payload: 32 bytes of plain data.
struct DeliveryHeader {
    /// The bucket whose listeners receive it.
    let bucket: Unmanaged<ListenerBucket>
    /// The registry's next listener id when it was fired: only listeners with a smaller id get it.
    let mark: UInt64
    /// For a replay, the one subscription it is for (its token's listener id and slot); `.max`
    /// for a fire.
    var targetID: UInt64 = .max
    var targetSlot: Int = -1

    var isReplay: Bool { targetID != .max }
}
