public import Foundation

/// One thing a bus did, as its ``EventTimeline`` recorded it: a fire, a delivery to one listener, a
/// diagnostic, or a step recorded on the bus (the configuration lifecycle's).
///
/// Times are seconds since the timeline started recording. A fire and its deliveries share
/// ``fire``, which draws the arrows from a fire to its deliveries in a trace.
///
/// ```swift
/// for record in bus.timeline.records() where record.kind == .delivery {
///     print(record.subscription, record.duration, record.waited)
/// }
/// ```
public struct TimelineRecord: Sendable, Equatable, CustomStringConvertible {
    /// What a record is.
    public enum Kind: Sendable, Equatable {
        /// A fire: ``event``, ``thread``, and what its locked section cost the caller (``duration``).
        case fire
        /// A listener called with a fire: ``event``, ``lane``, ``subscription``, ``waited`` and
        /// ``duration``.
        case delivery
        /// A listener called with the payload it is owed on subscribing (a sticky event's latest).
        case replay
        /// A diagnostic of the bus (a backlog, a sequence's drops, a slow listener): ``name``, and
        /// its description in ``detail``.
        case diagnostic
        /// A step recorded on the bus that takes no time (``name``, ``detail``).
        case step
        /// The start of a step that takes time (a fetch); a ``stepEnded`` of the same name ends it.
        case stepBegan
        /// The end of a step that takes time.
        case stepEnded
    }

    /// What the record is.
    public var kind: Kind
    /// When it happened, in seconds since the timeline started; for a delivery, when the listener
    /// was called.
    public var time: TimeInterval
    /// How long it took, in seconds: a delivery's callback, a fire's locked section; 0 otherwise.
    public var duration: TimeInterval
    /// The fire's identity, shared by a fire and its deliveries; 0 for other records.
    public var fire: UInt64
    /// The event fired or delivered; `""` for other records.
    public var event: String
    /// The lane that delivered (`main actor`, `immediate`, `actor DataManager`); `""` for others.
    public var lane: String
    /// Where the delivered listener subscribed, as `file:line` (`#fileID`); `""` when unknown: a
    /// `once`, an owner-bound `on`, a stream, an app bus's listener, or a subscription made by a
    /// binary built against 1.0.0.
    public var subscription: String
    /// How long a delivery waited between its fire and its call, in seconds; 0 for other records.
    public var waited: TimeInterval
    /// The firing thread: `main thread`, or `thread` and its number; `""` for other records.
    public var thread: String
    /// A step's or a diagnostic's name (`fetch`, `ready`, `slow listener`); `""` for others.
    public var name: String
    /// A step's or a diagnostic's line for logs; `""` for others.
    public var detail: String

    /// A line for logs.
    public var description: String {
        let at = String(format: "%.6f", time)
        switch kind {
        case .fire: return "\(at) fire \(event) on \(thread)"
        case .delivery, .replay:
            let what = kind == .replay ? "replay" : "delivery"
            return "\(at) \(what) \(event) on \(lane) to \(subscription.isEmpty ? "?" : subscription), "
                + "waited \(Int(waited * 1e6)) µs, ran \(Int(duration * 1e6)) µs"
        case .diagnostic, .step, .stepBegan, .stepEnded: return "\(at) \(name): \(detail)"
        }
    }

    init(kind: Kind, time: TimeInterval) {
        self.kind = kind
        self.time = time
        duration = 0
        fire = 0
        event = ""
        lane = ""
        subscription = ""
        waited = 0
        thread = ""
        name = ""
        detail = ""
    }
}
