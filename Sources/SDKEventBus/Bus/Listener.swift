/// One subscription: its callback, its place in the subscription order, and what bounds its life.
///
/// Immutable, so the delivery loop on the main actor reads it without a lock while other threads
/// subscribe and unsubscribe. Whether it is still live is the registry's business: the loop learns
/// of ended subscriptions through the bus's cancellation epoch (see ``BusStorage``).
final class Listener: Sendable {
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

    init(
        id: UInt64,
        slot: Int,
        event: SystemEvent,
        lifetime: SubscriptionLifetime?,
        callback: @escaping @MainActor @Sendable (EventPayloadValue) -> Void
    ) {
        self.id = id
        self.slot = Int32(slot)
        self.event = event
        self.lifetime = lifetime
        self.callback = callback
    }

    /// Runs the end hook, if any; whoever removed the listener calls it once, after unlocking.
    func runEndHook() {
        lifetime?.onEnd?()
    }
}
