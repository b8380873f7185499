import FlagCatalog
import SDKEventBus

/// What every peer's callbacks do: count, and let the benchmark await the last delivery.
///
/// The same object serves every design, so the work per callback is identical and only the
/// delivery mechanism differs.
@MainActor
final class Sink {
    private(set) var received = 0
    private var remaining = 0
    private var waiter: CheckedContinuation<Void, Never>?

    /// The callback every listener of every peer runs.
    func receive(_ payload: EventPayloadValue) {
        tally()
    }

    /// The same, for the listeners of the external catalog.
    func receive(_ payload: FlagEventPayload) {
        tally()
    }

    @inline(__always)
    private func tally() {
        received &+= 1
        remaining -= 1
        if remaining == 0, let waiter {
            self.waiter = nil
            waiter.resume()
        }
    }

    /// Sets how many callbacks the next round must deliver.
    func expect(_ count: Int) {
        remaining = count
    }

    /// Returns once the expected callbacks have run (at once for designs that deliver inline).
    func delivered() async {
        guard remaining > 0 else { return }
        await withCheckedContinuation { waiter = $0 }
    }
}

/// One callback for `sink`, typed as the bus's callbacks are.
@MainActor
func callback(for sink: Sink) -> @MainActor @Sendable (EventPayloadValue) -> Void {
    { payload in sink.receive(payload) }
}

/// One callback for `sink`, typed as the external catalog's callbacks are.
@MainActor
func flagCallback(for sink: Sink) -> @MainActor @Sendable (FlagEventPayload) -> Void {
    { payload in sink.receive(payload) }
}

/// One callback for `sink` with the main actor's isolation removed, for listeners that run on the
/// firing thread when every fire comes from the main actor.
///
/// The benchmarks fire from the main actor, so an immediate callback runs there; calling the sink
/// through `MainActor.assumeIsolated` would add a runtime check per callback that no other peer
/// pays. The cast is what `assumeIsolated` itself does after its check: the isolation of a
/// synchronous function is not part of its calling convention.
@MainActor
func inlineCallback(for sink: Sink) -> @Sendable (EventPayloadValue) -> Void {
    unsafeBitCast(callback(for: sink), to: (@Sendable (EventPayloadValue) -> Void).self)
}
