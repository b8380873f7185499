/// The closed catalog of events an SDK announces: conform your SDK's event enum to it, and the
/// bus, emitter, subscriptions, sequences and wire form all work with your events.
///
/// A catalog is a `String`-backed enum whose raw values are the events' wire names, shared with
/// the same SDK on other platforms, plus the payload sum type (``Payload``) whose every value names
/// its event, so that an event and a payload that disagree cannot be fired.
///
/// ```swift
/// enum FlagEvent: String, EventCatalog {
///     case initialized
///     case flagsChanged = "flags.changed"
///     case error
///
///     typealias Payload = FlagEventPayload
///
///     var replayRule: ReplayRule { self == .initialized ? .sticky : .none }
/// }
///
/// enum FlagEventPayload: CatalogPayload {
///     case initialized
///     case flagsChanged(changedKeys: [String])
///     case error(String)
///
///     var event: FlagEvent {
///         switch self {
///         case .initialized: .initialized
///         case .flagsChanged: .flagsChanged
///         case .error: .error
///         }
///     }
/// }
///
/// let (bus, emitter) = CatalogBus<FlagEvent>.makeBus()
/// ```
///
/// The built-in catalog, `SystemEvent` with `EventPayloadValue`, is one conformer. Add
/// `LifecycleCatalog` (in `SDKEventBusConfig`) to run the configuration lifecycle (`CatalogClient`), and
/// ``/SDKEventBusWire/WireCodablePayload`` (in `SDKEventBusWire`) to the payload for the JSON
/// wire form.
public protocol EventCatalog: RawRepresentable, CaseIterable, Hashable, Sendable, Codable
where RawValue == String {
    /// The payload sum type: one case per event, each value naming its event.
    associatedtype Payload: CatalogPayload where Payload.Event == Self

    /// Whether a listener that subscribes after this event was fired still receives it.
    ///
    /// The default is ``ReplayRule/none``.
    var replayRule: ReplayRule { get }
}

extension EventCatalog {
    /// No replay: late listeners do not receive earlier fires.
    public var replayRule: ReplayRule { .none }

    /// Why this event cannot be fired or subscribed to, when a hand-written `allCases` leaves it out:
    /// one sentence naming the event and the catalog, and what to do.
    ///
    /// Test SPI (`@_spi(Testing) import SDKEventBusCore`): the message a bus traps with, for tests
    /// that check it.
    @_spi(Testing) public var missingFromAllCasesDiagnosis: String {
        "\(Self.self).\(self) (\"\(rawValue)\") is not in \(Self.self).allCases, which lists "
            + "\(Self.allCases.map(\.rawValue)): a bus has listeners only for the events allCases lists; "
            + "add it to the hand-written allCases, or let CaseIterable synthesize it"
    }
}

/// The payload sum type of an ``EventCatalog``: every value knows its event.
///
/// Usually an enum with one case per event, named as the event, each wrapping that event's
/// payload struct (or no value). See ``EventCatalog`` for an example.
///
/// Name the cases as the events: then a debug build checks ``event`` at the first fire of each
/// event of a bus, and stops with a message when a case named after one event says it is another
/// (a slip in the `switch` that would deliver it to the other event's listeners). Once an event's
/// first fire passed, later fires of it are not checked (the check reflects on the payload, too
/// slow for every fire), so a slipped case fired after the event's own case goes unnoticed there:
/// `CatalogConformance` checks every case on its samples.
public protocol CatalogPayload: Sendable {
    /// The catalog of events this payload belongs to.
    associatedtype Event: EventCatalog where Event.Payload == Self

    /// The event this payload is fired as.
    var event: Event { get }
}

extension CatalogPayload {
    /// What is wrong when this value's case is named after one event of the catalog while its
    /// ``event`` is another; `nil` otherwise (also for a payload that is not an enum, or a case
    /// named after no event).
    ///
    /// Test SPI (`@_spi(Testing) import SDKEventBusCore`): the check of a debug build's first fire
    /// of each event, and of the testing library's `CatalogConformance`. Emitted only into its
    /// callers: a release build carries none of it.
    @_spi(Testing) @_alwaysEmitIntoClient
    public var eventSlip: String? {
        let mirror = Mirror(reflecting: self)
        guard mirror.displayStyle == .enum else { return nil }
        let caseName = mirror.children.first?.label ?? "\(self)"
        let event = self.event
        guard let named = Event.allCases.first(where: { "\($0)" == caseName }), named != event else { return nil }
        return "\(Self.self).\(caseName) is fired as \(event.rawValue), but it is named after the event "
            + "\(named.rawValue): it would reach \(event.rawValue) listeners and no \(named.rawValue) listener; "
            + "fix the case in \(Self.self).event"
    }
}

/// The position of each event of a catalog: the index of its listener buckets.
///
/// Computed once per bus. For a plain enum (one byte, cases in declaration order, which is what
/// `CaseIterable` synthesizes) the position is read from the value itself at no cost; any other
/// conformer uses a dictionary. An event missing from a hand-written `allCases` has no position:
/// using it traps with `missingFromAllCasesDiagnosis`, in every build, rather than reach another
/// event's listeners.
struct CatalogIndex<Event: EventCatalog>: Sendable {
    let events: [Event]
    /// For a plain enum, the number of events, which its tags are below; 0 for other conformers.
    ///
    /// Kept apart from `events`: reading an array's count in code not specialized for `Event` (the
    /// engine's entries) is a call.
    private let tagLimit: Int
    private let positions: [Event: Int]
    #if DEBUG
        /// The events whose fired payload a debug build has checked for a slip.
        let slipVerdicts: EventSlipVerdicts
    #endif

    init() {
        events = Array(Event.allCases)
        var readsTag = MemoryLayout<Event>.size == 1 && events.count > 1
        var positions: [Event: Int] = [:]
        for (position, event) in events.enumerated() {
            positions[event] = position
            if readsTag, Int(unsafeBitCast(event, to: UInt8.self)) != position { readsTag = false }
        }
        tagLimit = readsTag ? events.count : 0
        self.positions = positions
        #if DEBUG
            slipVerdicts = EventSlipVerdicts(eventCount: events.count)
        #endif
    }

    /// The position of `event` in `allCases`.
    @inline(__always)
    func position(of event: Event) -> Int {
        if tagLimit > 0 {
            // Every listed event's tag is its position; a tag past them is an event left out of
            // `allCases` after the listed ones.
            let tag = Int(unsafeBitCast(event, to: UInt8.self))
            guard tag < tagLimit else { Self.trapMissing(event) }
            return tag
        }
        guard let position = positions[event] else { Self.trapMissing(event) }
        return position
    }

    @inline(never)
    private static func trapMissing(_ event: Event) -> Never {
        preconditionFailure(event.missingFromAllCasesDiagnosis)
    }

    /// The replay rule of every event, by position.
    var replayRules: [ReplayRule] { events.map(\.replayRule) }
}
