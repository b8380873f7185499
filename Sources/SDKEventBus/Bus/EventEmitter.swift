/// The capability to fire events on one ``EventBus``.
///
/// An SDK keeps the emitter and hands app code only the bus, so app code cannot spoof system
/// events. Create both with ``EventBus/makeBus()``:
///
/// ```swift
/// let (bus, emitter) = EventBus.makeBus()
/// await emitter.fire(.conversion(ConversionPayload(goalId: "g1", visitorId: "v1")))
/// ```
public struct EventEmitter: Sendable {
    let storage: BusStorage

    /// Fires `payload` to every listener of its event that is subscribed now.
    ///
    /// Returns at once: callbacks run later on the main actor, in fire order, and `fire` never
    /// waits for them. Use ``EventBus/flush()`` to wait for delivery. The event is the payload's
    /// own, so an event and a payload that disagree cannot be fired. Runs on the caller's executor:
    /// firing costs a short lock and no actor hop.
    ///
    /// - Parameter payload: The event's payload.
    public nonisolated(nonsending) func fire(_ payload: EventPayloadValue) async {
        storage.enqueue(payload)
    }

    /// Shuts the bus down: every subscription ends, event sequences finish, and callbacks are
    /// released; later fires and subscriptions do nothing.
    ///
    /// Events fired but not yet delivered are dropped; await ``EventBus/flush()`` first to deliver
    /// them. Synchronous, so it can run from a `deinit`. ``SDKClient/shutdown()`` calls it after
    /// flushing.
    public func finish() {
        storage.shutDown()
    }
}
