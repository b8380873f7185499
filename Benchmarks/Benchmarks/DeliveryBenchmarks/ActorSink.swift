import SDKEventBus

/// What every listener isolated to an actor does, in the actor-delivery scenarios: count, and let
/// the benchmark await the last delivery. The counterpart of ``Sink`` for one custom actor.
actor ActorSink {
    private(set) var received = 0
    private var target = Int.max
    private var waiter: CheckedContinuation<Void, Never>?

    /// The callback every listener runs, isolated to this actor.
    func receive(_ payload: EventPayloadValue) {
        received &+= 1
        if received == target, let waiter {
            self.waiter = nil
            waiter.resume()
        }
    }

    /// Runs `callback` isolated to this actor: what a task started for one callback does.
    func run(_ callback: @Sendable (isolated ActorSink, EventPayloadValue) -> Void, with payload: EventPayloadValue) {
        callback(self, payload)
    }

    /// Returns once `total` callbacks have run since the sink was made.
    ///
    /// One call per round, so the measuring loop crosses to the actor once per round.
    func delivered(total: Int) async {
        guard received < total else { return }
        target = total
        await withCheckedContinuation { waiter = $0 }
    }
}
