/// What the engine tells a timeline while one is installed on a bus
/// (``BusStorage/installTimeline(_:)``): each fire, each delivery as it starts and ends, the
/// bus's diagnostics and the steps others record on it.
///
/// With none installed, the engine does one check per fire (under the lock it takes anyway) and one
/// per pass over a bucket, and records nothing: no clock read, lock or allocation for it. A sink is
/// called outside the bus's lock, on the thread where the thing happened (a delivery on the
/// thread delivering it), and must be quick and thread-safe; it may not call back into the bus.
package protocol TimelineSink: AnyObject, Sendable {
    /// A fire, once its locked section is over (its immediate deliveries follow).
    func fired(_ fire: TimelineFire)
    /// A delivery is about to call its listener.
    ///
    /// - Returns: A token handed back to ``delivered(_:token:)`` (a signpost's id, say).
    func willDeliver(_ delivery: TimelineDelivery) -> UInt64
    /// The listener returned: `delivery` now has its end.
    func delivered(_ delivery: TimelineDelivery, token: UInt64)
    /// Something else: a diagnostic of the bus, or a step recorded on it.
    func noted(_ note: TimelineNote)
}

/// A fire, as a timeline records it.
///
/// Times are the monotonic clock's nanoseconds (``MonotonicClock``).
package struct TimelineFire: Sendable {
    /// When it was fired; unique among the bus's fires (a fire in the same nanosecond as the one
    /// before gets the next one), so it is also the fire's identity, which its deliveries carry.
    package let stamp: UInt64
    /// When its locked section ended: what routing it cost the caller.
    package var end: UInt64
    /// The event's index in its catalog.
    package let event: Int
    /// The firing thread.
    package let thread: UInt64
    /// Whether it was the main thread.
    package let isMainThread: Bool
    /// The firing task's priority (a `TaskPriority`'s raw value).
    package let priority: UInt8
}

/// A delivery to one listener, as a timeline records it.
package struct TimelineDelivery: Sendable {
    /// The ``TimelineFire/stamp`` of the fire delivered; 0 for a replay to a new subscription.
    package let fire: UInt64
    /// The event's index in its catalog.
    package let event: Int
    /// The lane's number and name (`main actor`, `immediate`, `actor DataManager`).
    package let lane: Int
    package let laneName: String
    /// The subscription's listener id (its rank in the bus's subscription order).
    package let listener: UInt64
    /// The subscription's site, for ``BusStorage/site(_:)``; 0 for none.
    package let site: UInt32
    /// When the listener was called, and when it returned (0 until then).
    package let start: UInt64
    package var end: UInt64 = 0
}

/// Something a timeline records besides fires and deliveries.
package enum TimelineNote: Sendable {
    /// How a recorded step relates to the ones around it.
    package enum Phase: Sendable {
        /// A step that takes no time.
        case instant
        /// The start of a step that a later ``end`` of the same name finishes (a fetch).
        case begin
        /// The end of the last ``begin`` of the same name.
        case end
    }

    /// A diagnostic the bus reported, at `time`.
    case diagnostic(BusDiagnostic, time: UInt64)
    /// A step recorded on the bus (``BusStorage/recordStep(_:detail:phase:)``): the lifecycle's.
    case step(name: String, detail: String, phase: Phase, time: UInt64)
}
