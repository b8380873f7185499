/// Whether a listener that subscribes after an event was fired still receives it.
///
/// Declared once per event by the catalog's ``EventCatalog/replayRule``. In the built-in
/// catalog:
///
/// | event | rule |
/// | --- | --- |
/// | `SystemEvent.ready` | ``sticky`` |
/// | `SystemEvent.configUpdated` | ``latestOnRequest`` |
/// | every other event | ``none`` |
///
/// Not closed: a later major release may add cases (a minor release does not; see Versioning), so a
/// `switch` over it ends with `@unknown default` after its cases, which a binary SDK's
/// library-evolution build requires anyway.
public enum ReplayRule: Sendable, Hashable {
    /// Late listeners do not receive earlier fires.
    case none
    /// A listener that subscribes after the event was fired receives the latest fire once, right
    /// away, and only that new listener does: existing listeners never receive a duplicate.
    case sticky
    /// Like ``sticky``, but only for subscriptions that ask for it with `replayLatest: true`.
    case latestOnRequest
}
