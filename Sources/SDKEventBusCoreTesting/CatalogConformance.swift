import Foundation
@_spi(Testing) public import SDKEventBusCore

/// Checks an SDK's catalog against its wire contract, in the SDK's own tests: the event names
/// are unique and exactly the committed ones, every sample payload maps to its event (a case named
/// after one event is not fired as another) and that event is in `allCases`, every payload struct
/// wraps a value of its own event and takes it back, and each event replays as declared.
///
/// Where `SDKEventBusTesting` is imported, and the catalog's payload is a `WireCodablePayload` (of
/// `SDKEventBusWire`), every sample also round-trips through the JSON wire form.
///
/// ```swift
/// @Test func catalogKeepsItsWireContract() throws {
///     try CatalogConformance<FlagEvent>(
///         rawValues: ["initialized", "flags.changed", "error"],
///         replayRules: [.initialized: .sticky],
///         samples: [.initialized, .flagsChanged(changedKeys: ["a"]), .error("boom")],
///         typedSamples: [FlagsChangedPayload(changedKeys: ["a"]), FlagErrorPayload(message: "boom")]
///     ).verify()
/// }
/// ```
///
/// Pass one value of each payload struct (each ``/SDKEventBusCore/TypedPayload`` conformer) as `typedSamples`: a
/// struct whose `event` names one event while its `payloadValue` wraps another's case (a
/// copy-paste slip) compiles, and is fired as the other event; the check names it.
///
/// Commit the raw values: other platforms and analytics pipelines match on them, so a renamed or
/// reordered event must fail a test. Works with Swift Testing and XCTest alike: ``verify()`` throws
/// a ``Failure`` that lists every problem; ``problems`` returns them.
///
/// The check takes the core alone, so an events-only SDK's tests take nothing else for it. The wire
/// form's round trip is added by the initializer of the same name in `SDKEventBusTesting`, which
/// the compiler chooses where that module is imported and the payload type is known to be a
/// `WireCodablePayload`; in code generic over any `EventCatalog`, create the check where the
/// catalog is known.
public struct CatalogConformance<Catalog: EventCatalog>: Sendable {
    /// The problems ``verify()`` found.
    public struct Failure: Error, Sendable, CustomStringConvertible {
        /// Every problem, one sentence each.
        public var problems: [String]

        /// The problems, one per line.
        public var description: String {
            "the \(Catalog.self) catalog breaks its contract:\n"
                + problems.map { "- \($0)" }.joined(separator: "\n")
        }
    }

    /// The committed raw values, in declaration order.
    public var rawValues: [String]
    /// The declared replay rule of each event that replays; the others must not.
    public var replayRules: [Catalog: ReplayRule]
    /// At least one payload of every event.
    public var samples: [Catalog.Payload]
    /// One value of each payload struct of the catalog.
    ///
    /// Plain `any TypedPayload`, not `any TypedPayload<Catalog>`: an array of a parameterized
    /// existential needs the Swift 5.7 runtime (iOS 16), and the testing library works from iOS 13.
    /// A sample of another catalog is reported as a problem.
    public var typedSamples: [any TypedPayload]
    /// Checks of a sample beyond the core's, each returning a problem or `nil`: the wire form's
    /// round trip, which `SDKEventBusTesting` adds for a `WireCodablePayload`.
    package var sampleChecks: [@Sendable (Catalog.Payload) -> String?] = []

    /// Creates a check.
    ///
    /// - Parameters:
    ///   - rawValues: The committed raw values, in declaration order.
    ///   - replayRules: The declared replay rule of each event that replays.
    ///   - samples: At least one payload of every event.
    ///   - typedSamples: One value of each payload struct (``/SDKEventBusCore/TypedPayload`` conformer) of the
    ///     catalog, so that a struct whose `event` and `payloadValue` disagree is caught; a sample
    ///     of another catalog is a problem.
    public init(
        rawValues: [String],
        replayRules: [Catalog: ReplayRule] = [:],
        samples: [Catalog.Payload],
        typedSamples: [any TypedPayload] = []
    ) {
        self.rawValues = rawValues
        self.replayRules = replayRules
        self.samples = samples
        self.typedSamples = typedSamples
    }

    /// Runs every check.
    ///
    /// - Throws: ``Failure`` listing every problem.
    public func verify() throws {
        let problems = self.problems
        if !problems.isEmpty { throw Failure(problems: problems) }
    }

    /// Every problem found, one sentence each; empty when the catalog keeps its contract.
    public var problems: [String] {
        namingProblems + sampleProblems + typedPayloadProblems + replayProblems
            + sampleChecks.flatMap { check in samples.compactMap(check) }
    }

    private var namingProblems: [String] {
        var problems: [String] = []
        let actual = Catalog.allCases.map(\.rawValue)
        let duplicates = Dictionary(grouping: actual, by: { $0 }).filter { $0.value.count > 1 }.keys.sorted()
        if !duplicates.isEmpty { problems.append("raw values used by more than one event: \(duplicates)") }
        if actual != rawValues {
            let added = actual.filter { !rawValues.contains($0) }
            let removed = rawValues.filter { !actual.contains($0) }
            var detail: [String] = []
            if !added.isEmpty { detail.append("not committed: \(added)") }
            if !removed.isEmpty { detail.append("missing: \(removed)") }
            if added.isEmpty, removed.isEmpty { detail.append("order changed") }
            problems.append(
                "the raw values \(actual) differ from the committed \(rawValues) (\(detail.joined(separator: "; ")))")
        }
        for event in Catalog.allCases where Catalog(rawValue: event.rawValue) != event {
            problems.append("\"\(event.rawValue)\" does not decode back to \(event)")
        }
        return problems
    }

    private var sampleProblems: [String] {
        let covered = Set(samples.map(\.event))
        let listed = Set(Catalog.allCases)
        let unlisted = covered.subtracting(listed).map(\.rawValue).sorted().map {
            "\($0) has a sample payload but is missing from \(Catalog.self).allCases: "
                + "firing or subscribing to it traps; add it to the hand-written allCases"
        }
        return unlisted + samples.compactMap(\.eventSlip)
            + Catalog.allCases.filter { !covered.contains($0) }.map { "no sample payload of \($0.rawValue)" }
    }

    /// Each payload struct wraps a value of its own event, and takes that value back.
    private var typedPayloadProblems: [String] {
        func check<Payload: TypedPayload>(_ sample: Payload) -> String? {
            guard Payload.Catalog.self == Catalog.self else {
                return "\(Payload.self) is a payload of \(Payload.Catalog.self), not of \(Catalog.self): "
                    + "pass only the payload structs of \(Catalog.self) as typedSamples"
            }
            let value = sample.payloadValue
            if let slip = Payload.eventSlip(in: value) { return slip }
            guard Payload(value) != nil else {
                return
                    "\(Payload.self)(_:) does not take back its own payloadValue, a \(value.event.rawValue) payload: "
                    + "typed listeners of \(Payload.self) would receive nothing"
            }
            return nil
        }
        return typedSamples.compactMap { check($0) }
    }

    /// Fires each event's sample before subscribing late, in every way, on a fresh bus with
    /// immediate delivery, and checks who gets it.
    private var replayProblems: [String] {
        var problems: [String] = []
        for event in Catalog.allCases {
            let declared = replayRules[event] ?? .none
            if event.replayRule != declared {
                problems.append("\(event.rawValue) replays \(event.replayRule), declared \(declared)")
            }
            guard let sample = samples.first(where: { $0.event == event }) else { continue }
            let (bus, emitter) = CatalogBus<Catalog>.makeBus()
            emitter.fire(sample)
            let plain = Count()
            let asking = Count()
            let early = Count()
            _ = bus.on(event, delivery: .immediate) { _ in plain.add() }
            _ = bus.on(event, delivery: .immediate, replayLatest: true) { _ in asking.add() }
            let expected: (plain: Int, asking: Int) =
                switch event.replayRule {
                case .none: (0, 0)
                case .sticky: (1, 1)
                case .latestOnRequest: (0, 1)
                }
            if (plain.value, asking.value) != expected {
                problems.append(
                    "a late \(event.rawValue) listener got \(plain.value) replay(s) (\(asking.value) when asking); "
                        + "its rule \(event.replayRule) promises \(expected.plain) (\(expected.asking) when asking)")
            }
            emitter.fire(sample)
            if plain.value != expected.plain + 1 {
                problems.append("a fire of \(event.rawValue) after subscribing was not delivered exactly once")
            }
            emitter.shutdown()
            // On a fresh bus, nothing to replay: a listener gets exactly what is fired afterwards.
            let (freshBus, freshEmitter) = CatalogBus<Catalog>.makeBus()
            _ = freshBus.on(event, delivery: .immediate) { _ in early.add() }
            freshEmitter.fire(sample)
            if early.value != 1 {
                problems.append("a fire of \(event.rawValue) on a fresh bus reached its listener \(early.value) times")
            }
            freshEmitter.shutdown()
        }
        return problems
    }
}

/// A counter a callback bumps.
private final class Count: Sendable {
    private let count = LockedValue(0)
    var value: Int { count.withLock { $0 } }
    func add() { count.withLock { $0 += 1 } }
}
