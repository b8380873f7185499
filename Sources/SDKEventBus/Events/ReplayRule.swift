/// Whether a listener that subscribes after an event was fired still receives it.
///
/// Declared once per event by ``SystemEvent/replayRule``:
///
/// | event | rule |
/// | --- | --- |
/// | ``SystemEvent/ready`` | ``sticky`` |
/// | ``SystemEvent/configUpdated`` | ``latestOnRequest`` |
/// | every other event | ``none`` |
public enum ReplayRule: Sendable, Hashable {
    /// Late listeners do not receive earlier fires.
    case none
    /// A listener that subscribes after the event was fired receives the latest fire once, right
    /// away, and only that new listener does: existing listeners never receive a duplicate.
    case sticky
    /// Like ``sticky``, but only for subscriptions that ask for it with `replayLatest: true`.
    case latestOnRequest
}

extension SystemEvent {
    /// The replay rule of this event; the single place where replay is declared.
    ///
    /// `.ready` is sticky, so `on(.ready)` after the SDK became ready still runs its callback once.
    /// `.configUpdated` replays its latest value to subscriptions that ask for it.
    public var replayRule: ReplayRule {
        switch self {
        case .ready: .sticky
        case .configUpdated: .latestOnRequest
        case .apiQueueReleased, .bucketing, .conversion, .segments, .locationActivated, .locationDeactivated,
            .audiences, .dataStoreQueueReleased:
            .none
        }
    }
}
