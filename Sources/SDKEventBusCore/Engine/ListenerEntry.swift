internal import _SDKEventBusAtomics

/// One subscription as its bucket stores it: 32 bytes, read in place by delivery passes.
///
/// A pass reads `id` and `callback` without the lock. Both are written once, before the entry is
/// published, and `callback` again only when it is released, which never happens while a pass may
/// read it. `state` is the one field written while passes run, and it is atomic. Its low bit says
/// whether the subscription ended; the rest is where it was made, its index in the bus's
/// ``SubscriptionSites`` (0 for unknown), written with it: a slow listener is named from the entry
/// alone, and the entry keeps its 32 bytes.
struct ListenerEntry {
    /// The subscription's rank in its bus's subscription order; never reused.
    let id: UInt64
    /// The site, shifted left by one, and ``ended`` once the subscription ends; read and written
    /// atomically.
    var state: UInt32
    /// The subscription's row in the registry's slot table.
    var slot: Int32
    /// The subscriber's callback; ``ErasedCallback/released`` once released.
    var callback: ErasedCallback

    /// The bit of ``state`` set once the subscription ends.
    static let ended: UInt32 = 1

    /// The state of a live subscription made at `site`: sites past 31 bits are unknown (0).
    static func liveState(site: UInt32) -> UInt32 { site < 1 << 31 ? site << 1 : 0 }

    /// Whether the subscription ended; for the lock holder, or a copy.
    var hasEnded: Bool { state & Self.ended != 0 }

    /// Where the subscription was made, its index in the bus's ``SubscriptionSites``; for the
    /// lock holder, or a copy.
    var site: UInt32 { state >> 1 }

    /// Where the subscription of `entry` was made, read while passes may run.
    static func site(of entry: UnsafeMutablePointer<ListenerEntry>) -> UInt32 {
        sdk_event_bus_load_acquire_32(&entry.pointee.state) >> 1
    }

    /// Whether the subscription is live, with acquire ordering: a pass reads it before each call.
    ///
    /// `&entry.pointee.state` is the field's own address (`pointee` is an addressor), with no
    /// lookup: a field offset taken from a key path is a lazily initialized global, whose
    /// `swift_once` check cost 7% of a delivery pass.
    @inline(__always)
    static func isLive(_ entry: UnsafeMutablePointer<ListenerEntry>) -> Bool {
        sdk_event_bus_load_acquire_32(&entry.pointee.state) & ended == 0
    }

    /// The address of `entry`'s callback, reached without a formal access to the entry.
    @inline(__always)
    static func callback(of entry: UnsafeMutablePointer<ListenerEntry>) -> UnsafeMutablePointer<ErasedCallback> {
        (UnsafeMutableRawPointer(entry) + callbackOffset).assumingMemoryBound(to: ErasedCallback.self)
    }

    /// Where ``callback`` lies in an entry, after `id`, `state` and `slot`.
    ///
    /// A constant, not `MemoryLayout.offset(of:)`, whose key path is a lazily initialized global;
    /// a test checks that the two agree.
    static var callbackOffset: Int { 16 }

    /// Ends the subscription, with release ordering; the caller holds the bus's lock.
    static func markEnded(_ entry: UnsafeMutablePointer<ListenerEntry>) {
        // Only the lock holder writes the state: its own read needs no ordering.
        let current = entry.pointee.state
        sdk_event_bus_store_release_32(&entry.pointee.state, current | ended)
    }
}
