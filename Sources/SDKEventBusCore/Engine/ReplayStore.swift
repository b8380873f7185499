/// The latest payload of each event, for replay: raw storage in the bus's payload layout.
final class ReplayStore: @unchecked Sendable {
    // @unchecked: only touched under the bus's lock.

    private let layout: PayloadLayout
    private var slots: UnsafeMutableRawPointer
    private var filled: [Bool]

    init(layout: PayloadLayout, eventCount: Int) {
        self.layout = layout
        filled = Array(repeating: false, count: eventCount)
        slots = .allocate(byteCount: max(1, eventCount) * layout.stride, alignment: layout.alignment)
    }

    deinit {
        _ = removeAll()
        slots.deallocate()
    }

    /// The latest payload of `event`, if it has one.
    func payload(of event: Int) -> UnsafeRawPointer? {
        filled[event] ? UnsafeRawPointer(slots + event * layout.stride) : nil
    }

    /// Keeps a copy of the payload at `payload` as the latest of `event`.
    ///
    /// - Returns: The payload it replaced, moved into memory of its own (one payload's size: a
    ///   replayed event may fire often), to destroy and free after unlocking.
    func set(_ event: Int, to payload: UnsafeRawPointer) -> UnsafeMutableRawPointer? {
        let slot = slots + event * layout.stride
        var replaced: UnsafeMutableRawPointer?
        if filled[event] {
            let old = UnsafeMutableRawPointer.allocate(byteCount: max(1, layout.stride), alignment: layout.alignment)
            layout.move(to: old, from: slot)
            replaced = old
        }
        layout.copy(to: slot, from: payload)
        filled[event] = true
        return replaced
    }

    /// How many payloads it retains.
    var retainedCount: Int { filled.reduce(0) { $0 + ($1 ? 1 : 0) } }

    /// How many payloads it has room for: one per event.
    var slotCount: Int { filled.count }

    /// Forgets the latest payload of `event`.
    ///
    /// - Returns: The payload, to destroy after unlocking; `nil` when it had none.
    func remove(_ event: Int) -> DeliveryBuffer? {
        guard filled[event] else { return nil }
        let removed = DeliveryBuffer(layout: layout)
        removed.appendMoving(payload: slots + event * layout.stride)
        filled[event] = false
        return removed
    }

    /// Makes room for one more event.
    func addEvent() {
        let count = filled.count
        let grown = UnsafeMutableRawPointer.allocate(
            byteCount: (count + 1) * layout.stride, alignment: layout.alignment)
        if layout.isBitwiseTakable {
            grown.copyMemory(from: slots, byteCount: count * layout.stride)
        } else {
            for event in filled.indices where filled[event] {
                layout.move(to: grown + event * layout.stride, from: slots + event * layout.stride)
            }
        }
        slots.deallocate()
        slots = grown
        filled.append(false)
    }

    /// Forgets every payload.
    ///
    /// - Returns: The payloads, to destroy after unlocking.
    func removeAll() -> DeliveryBuffer {
        let removed = DeliveryBuffer(layout: layout)
        for event in filled.indices where filled[event] {
            removed.appendMoving(payload: slots + event * layout.stride)
            filled[event] = false
        }
        return removed
    }
}
