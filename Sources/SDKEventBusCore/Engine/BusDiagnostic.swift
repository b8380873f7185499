public import Foundation

/// Something a bus noticed that its owner should know about: reported to the `diagnostics` hook
/// given when the bus was made, on the thread where it happened, outside the bus's lock.
///
/// ```swift
/// let (bus, emitter) = EventBus.makeBus { diagnostic in
///     logger.warning("\(diagnostic)")
/// }
/// ```
///
/// A later 1.x release may add reports: a `switch` over a diagnostic has a `default`.
public enum BusDiagnostic: Sendable, CustomStringConvertible {
    /// Fires are piling up for a lane whose executor does not keep up (a busy main actor, a slow
    /// actor): reported when the pending count first reaches 1,000, then at each doubling, until
    /// the lane catches up.
    ///
    /// `lane` is `main actor`, `immediate`, or `actor` and the actor's type; `pending` how many
    /// fires wait for it now; `highWaterMark` the most that ever waited at once; `oldestAge` how
    /// long the oldest has waited, in seconds.
    case backlog(lane: String, pending: Int, highWaterMark: Int, oldestAge: TimeInterval)
    /// An event sequence's buffer was full, so its buffering policy dropped events.
    ///
    /// `dropped` counts the events of `event` dropped since its last report. Reports come at the
    /// sequence's first drop, then once 256 more drops have piled up, and with the rest when the
    /// sequence ends: a sequence's reports add up to exactly the events it dropped, and a stalled
    /// consumer cannot flood the hook.
    case sequenceDropped(event: String, dropped: Int, policy: EventBufferingPolicy)
    /// A subscription was made on an app bus that its container had released from its scope (code
    /// that looked the bus up before the release, on another thread say): it ended at once, and a
    /// stream of it finished, since no one publishes on that bus for the scope any more.
    ///
    /// `bus` is the bus's name (the scope's description, for a bus the container created). Look the
    /// scope's bus up again to subscribe to the scope as it is now.
    case subscribedToReleasedBus(bus: String)
    /// A main-actor callback ran longer than the bus's ``CatalogBus/slowListenerThreshold`` (one
    /// frame, 16 ms, unless set otherwise): the listener that made the app hitch.
    ///
    /// `file` and `line` are where its `on` was called, as `#fileID` and `#line` say; `""` and 0
    /// for a `once`, an owner-bound `on`, and a subscription made by a binary built against 1.0.0,
    /// which pass no site. `duration` is how long the callback ran, in seconds. Reported whether or not a timeline
    /// records, as the main-actor job that ran it ends. The first 16 callbacks of every main-actor
    /// job are timed one by one, and the rest in spans of up to 16: a slow callback among others
    /// in a span is named the next time it runs within the next 8 main-actor jobs, which time
    /// each callback alone.
    case slowListener(event: String, file: String, line: Int, duration: TimeInterval)

    /// A line for logs.
    public var description: String {
        switch self {
        case .backlog(let lane, let pending, let highWaterMark, let oldestAge):
            "\(pending) fires waiting for the \(lane) lane (the oldest for \(oldestAge) seconds; "
                + "high-water mark \(highWaterMark)): its executor is not keeping up"
        case .sequenceDropped(let event, let dropped, let policy):
            "an event sequence of \(event) dropped \(dropped) event(s): its consumer is behind "
                + "(buffering policy \(policy))"
        case .subscribedToReleasedBus(let bus):
            "a subscription was made on the app bus \(bus) after its container released it: it ended at once; "
                + "look the scope's bus up again to subscribe to it"
        case .slowListener(let event, let file, let line, let duration):
            "slow main-actor listener of \(event)\(file.isEmpty ? "" : " at \(file):\(line)"): \(Int(duration * 1_000)) ms"
        }
    }
}
