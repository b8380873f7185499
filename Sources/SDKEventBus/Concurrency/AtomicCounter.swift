internal import _SDKEventBusAtomics

/// A counter that one thread can read without a lock while others increment it.
///
/// The bus's cancellation epoch: the delivery loop reads it before every callback, so the read is
/// one plain load on the platforms the package supports.
struct AtomicCounter: @unchecked Sendable {
    // @unchecked: the counter is only touched through the atomic operations below.

    /// The counter, tail-allocated so that it has a stable address.
    final class Buffer: ManagedBuffer<Void, UInt64> {}

    private let buffer: Buffer

    init() {
        let buffer = Buffer.create(minimumCapacity: 1) { _ in }
        buffer.withUnsafeMutablePointerToElements { $0.initialize(to: 0) }
        self.buffer = unsafeDowncast(buffer, to: Buffer.self)
    }

    /// The current value, with acquire ordering.
    @inline(__always)
    func load() -> UInt64 {
        buffer.withUnsafeMutablePointerToElements { sdk_event_bus_counter_load($0) }
    }

    /// Adds one, with release ordering.
    func increment() {
        buffer.withUnsafeMutablePointerToElements { sdk_event_bus_counter_increment($0) }
    }
}
