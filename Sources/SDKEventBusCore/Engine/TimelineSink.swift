/// What the engine tells a timeline while one is installed on a bus
/// (``BusStorage/installTimeline(_:)``): each fire, each delivery as it starts and ends, the bus's
/// diagnostics and the steps others record on it.
///
/// With none installed, the engine does one check per fire (under the lock it takes anyway) and one
/// per pass over a bucket, and records nothing: no clock read, lock or allocation for it. A sink is
/// called outside the bus's lock, on the thread where the thing happened (a delivery on the
/// thread delivering it), and must be quick and thread-safe; it may not call back into the bus.
///
/// Times are the monotonic clock's nanoseconds (``MonotonicClock``). Plain values only, so that the
/// core carries no record types for it.
package protocol TimelineSink: AnyObject, Sendable {
    /// A fire, once its locked section is over (its immediate deliveries follow).
    ///
    /// - Parameters:
    ///   - stamp: When it was fired; unique among the bus's fires (a fire in the same nanosecond as
    ///     the one before gets the next one), so it is also the fire's identity, which its deliveries
    ///     carry.
    ///   - end: When its locked section ended.
    ///   - event: The event's index in its catalog.
    ///   - thread: The firing thread.
    ///   - isMainThread: Whether it was the main thread.
    func fired(stamp: UInt64, end: UInt64, event: Int, thread: UInt64, isMainThread: Bool)

    /// A delivery is about to call its listener.
    ///
    /// - Parameters:
    ///   - fire: The stamp of the fire delivered; 0 for a replay.
    ///   - event: The event's index.
    ///   - laneName: The lane (`main actor`, `immediate`, `actor DataManager`).
    /// - Returns: A token handed back to ``delivered(_:start:end:token:)`` (a signpost's id, say).
    func willDeliver(fire: UInt64, event: Int, laneName: String) -> UInt64

    /// The listener returned.
    ///
    /// - Parameters:
    ///   - delivery: The fire's stamp (0 for a replay), the event, the lane's number and name, the
    ///     subscription's listener id and site (``BusStorage/site(_:)``; 0 for none).
    ///   - start: When the listener was called.
    ///   - end: When it returned.
    ///   - token: What ``willDeliver(fire:event:laneName:)`` returned.
    func delivered(
        _ delivery: (fire: UInt64, event: Int, lane: Int, laneName: String, listener: UInt64, site: UInt32),
        start: UInt64, end: UInt64, token: UInt64)

    /// A diagnostic the bus reported, at `time`.
    func noted(_ diagnostic: BusDiagnostic, time: UInt64)

    /// A step recorded on the bus (``BusStorage/recordStep(_:detail:phase:)``): the lifecycle's.
    ///
    /// - Parameters:
    ///   - name: The step.
    ///   - detail: Its line for logs.
    ///   - phase: ``TimelineStepPhase``.
    ///   - time: When.
    func noted(step name: String, detail: String, phase: TimelineStepPhase, time: UInt64)
}

/// How a recorded step relates to the ones around it.
///
/// A byte, not an enum: the core carries no conformances for it.
package struct TimelineStepPhase: Sendable, Equatable {
    let value: UInt8

    /// A step that takes no time.
    package static var instant: TimelineStepPhase { TimelineStepPhase(value: 0) }
    /// The start of a step that a later ``end`` of the same name finishes (a fetch).
    package static var begin: TimelineStepPhase { TimelineStepPhase(value: 1) }
    /// The end of the last ``begin`` of the same name.
    package static var end: TimelineStepPhase { TimelineStepPhase(value: 2) }
}
