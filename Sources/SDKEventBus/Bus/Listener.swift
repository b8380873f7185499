internal import _SDKEventBusAtomics

/// One subscription: its callback, its place in the subscription order, and a cancelled flag.
///
/// Everything but the flag is immutable. The flag is written by whoever ends the subscription (any
/// thread) and read by the delivery loop on the main actor before each callback, without a lock:
/// that read is what makes "after `off` returns, the callback never runs again" hold even for
/// events already queued. The flag lives in the object's tail allocation so it has a stable address
/// for the atomic operations, and a subscription costs one allocation.
struct Listener: @unchecked Sendable {
    // @unchecked: the header is immutable after creation; the flag is only touched atomically.

    /// The immutable part of a subscription.
    struct Header {
        /// The subscription's rank in its bus's subscription order; never reused.
        let id: UInt64
        /// The subscription's row in its bus's slot table (see ``ListenerRegistry``).
        let slot: Int32
        /// The event subscribed to.
        let event: SystemEvent
        /// The app's callback.
        let callback: @MainActor @Sendable (EventPayloadValue) -> Void
        /// The owner and end hook, for the subscriptions that have them.
        let lifetime: SubscriptionLifetime?
    }

    /// The header and the flag, tail-allocated together.
    final class Buffer: ManagedBuffer<Header, Bool> {}

    private let buffer: Buffer

    /// Creates a live subscription.
    static func make(
        id: UInt64,
        slot: Int,
        event: SystemEvent,
        lifetime: SubscriptionLifetime?,
        callback: @escaping @MainActor @Sendable (EventPayloadValue) -> Void
    ) -> Listener {
        let buffer = Buffer.create(minimumCapacity: 1) { _ in
            Header(id: id, slot: Int32(slot), event: event, callback: callback, lifetime: lifetime)
        }
        buffer.withUnsafeMutablePointerToElements { $0.initialize(to: false) }
        return Listener(buffer: unsafeDowncast(buffer, to: Buffer.self))
    }

    var id: UInt64 { buffer.header.id }
    var slot: Int { Int(buffer.header.slot) }
    var event: SystemEvent { buffer.header.event }
    var lifetime: SubscriptionLifetime? { buffer.header.lifetime }

    /// Whether two values are the same subscription.
    func isSame(as other: Listener) -> Bool { buffer === other.buffer }

    /// Whether the subscription has ended.
    ///
    /// Safe to read from any thread.
    var isCancelled: Bool {
        buffer.withUnsafeMutablePointerToElements { sdk_event_bus_flag_load($0) }
    }

    /// Ends the subscription for the delivery loop.
    ///
    /// - Returns: `true` if this call ended it, `false` if it had already ended.
    @discardableResult
    func markCancelled() -> Bool {
        buffer.withUnsafeMutablePointerToElements { !sdk_event_bus_flag_exchange($0, true) }
    }

    /// Runs the end hook, if any; the owner of the removed listener calls it once, after unlocking.
    func runEndHook() {
        buffer.header.lifetime?.onEnd?()
    }

    /// Calls the app's callback unless the subscription has ended.
    @MainActor
    @inline(__always)
    func deliver(_ payload: EventPayloadValue) {
        guard !isCancelled else { return }
        buffer.header.callback(payload)
    }
}
