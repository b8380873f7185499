import SDKEventBusConfig
import SDKEventBusTesting
import SDKEventBusWire
import Testing

/// `CatalogConformance` from the testing library, on the flag catalog, and
/// on a catalog broken on purpose, which it must reject naming each problem.
@Suite struct CatalogConformanceTests {
    static let flagRawValues = ["initialized", "flags.changed", "error", "stale", "reconciling", "context.changed"]

    // MARK: Catalogs that keep their contract

    /// One value of each payload struct of the flag catalog.
    static let flagTypedSamples: [any TypedPayload] = [
        InitializedPayload(source: .live), FlagsChangedPayload(changedKeys: ["a"]), FlagErrorPayload(message: "boom"),
        StalePayload(reason: "offline"), ReconcilingPayload(), ContextChangedPayload(targetingKey: "user-1"),
    ]

    @Test func flagCatalogKeepsItsWireContract() throws {
        try CatalogConformance<FlagEvent>(
            rawValues: Self.flagRawValues,
            replayRules: [.initialized: .sticky],
            samples: FlagEventPayload.samples,
            typedSamples: Self.flagTypedSamples
        ).verify()
    }

    // MARK: A catalog broken on purpose

    /// The flag catalog after a careless refactoring, checked against the committed contract.
    static var drifted: CatalogConformance<DriftedFlagEvent> {
        CatalogConformance(
            rawValues: ["initialized", "flags.changed", "error"],
            replayRules: [.initialized: .sticky],
            samples: [.initialized, .flagsChanged(["myBoolFlag"]), .error("JSON rejected")]
        )
    }

    @Test func conformanceFailsNamingATypedSampleOfAnotherCatalog() {
        var drifted = Self.drifted
        drifted.typedSamples = [FlagsChangedPayload(changedKeys: ["a"])]
        #expect(
            drifted.problems.contains {
                $0.hasPrefix("FlagsChangedPayload is a payload of FlagEvent, not of DriftedFlagEvent")
            })
    }

    @Test func conformanceFailsNamingARenamedRawValue() {
        #expect(
            Self.drifted.problems.contains {
                $0.contains(#"not committed: ["flag.changed"]"#) && $0.contains(#"missing: ["flags.changed"]"#)
            }, "\(Self.drifted.problems)")
    }

    @Test func conformanceFailsNamingAReplayRuleThatDiffersFromTheCommittedOne() {
        #expect(Self.drifted.problems.contains("initialized replays none, declared sticky"), "\(Self.drifted.problems)")
        let forgotten = CatalogConformance<FlagEvent>(
            rawValues: Self.flagRawValues, replayRules: [:], samples: FlagEventPayload.samples)
        #expect(forgotten.problems.contains("initialized replays sticky, declared none"), "\(forgotten.problems)")
    }

    @Test func conformanceFailsNamingAPayloadWhoseWireFormDoesNotRoundTrip() {
        #expect(
            Self.drifted.problems.contains {
                $0.hasPrefix("the sample ") && $0.contains("(fired as error) does not round-trip")
            },
            "\(Self.drifted.problems)")
    }

    @Test func verifyThrowsOneFailureListingEveryProblem() {
        let failure = #expect(throws: CatalogConformance<DriftedFlagEvent>.Failure.self) {
            try Self.drifted.verify()
        }
        #expect(failure?.problems.count == 3)
        #expect(failure?.description.hasPrefix("the DriftedFlagEvent catalog breaks its contract:\n- ") == true)
    }

    @Test func conformanceFailsNamingAnEventWithoutASample() {
        let check = CatalogConformance<FlagEvent>(
            rawValues: Self.flagRawValues,
            replayRules: [.initialized: .sticky],
            samples: Array(FlagEventPayload.samples.dropLast())
        )
        #expect(check.problems.contains("no sample payload of context.changed"), "\(check.problems)")
    }

    // MARK: Payload structs

    /// A payload struct whose `event` is `flags.changed` while its `payloadValue` wraps an `error`:
    /// it compiles, and the check used to pass it, since nothing fed it the struct.
    @Test func conformanceNamesAPayloadStructWhoseValueIsAnotherEvents() {
        let check = CatalogConformance<FlagEvent>(
            rawValues: Self.flagRawValues,
            replayRules: [.initialized: .sticky],
            samples: FlagEventPayload.samples,
            typedSamples: Self.flagTypedSamples + [SlippedFlagsChangedPayload(changedKeys: ["a"])]
        )
        #expect(
            check.problems == [
                "SlippedFlagsChangedPayload.event is flags.changed, but its payloadValue is a payload of error: "
                    + "fired, it would reach error listeners and no flags.changed listener; "
                    + "make payloadValue wrap the flags.changed case"
            ], "\(check.problems)")
    }

    @Test func conformanceNamesAPayloadStructThatDoesNotTakeBackItsOwnValue() {
        let check = CatalogConformance<FlagEvent>(
            rawValues: Self.flagRawValues,
            replayRules: [.initialized: .sticky],
            samples: FlagEventPayload.samples,
            typedSamples: [DeafFlagErrorPayload(message: "boom")]
        )
        #expect(
            check.problems == [
                "DeafFlagErrorPayload(_:) does not take back its own payloadValue, a error payload: "
                    + "typed listeners of DeafFlagErrorPayload would receive nothing"
            ], "\(check.problems)")
    }

    @Test func conformanceNamesAnEventMissingFromAHandWrittenAllCases() {
        let check = CatalogConformance<ShortListedEvent>(
            rawValues: ["first", "last"], samples: [.first, .middle, .last])
        #expect(
            check.problems.contains(
                "middle has a sample payload but is missing from ShortListedEvent.allCases: "
                    + "firing or subscribing to it traps; add it to the hand-written allCases"),
            "\(check.problems)")
    }

    @Test func conformanceFailsWhenTheCommittedOrderDiffers() {
        let check = CatalogConformance<FlagEvent>(
            rawValues: Self.flagRawValues.reversed(),
            replayRules: [.initialized: .sticky],
            samples: FlagEventPayload.samples
        )
        #expect(check.problems.contains { $0.hasSuffix("(order changed)") }, "\(check.problems)")
    }
}

/// The flag catalog as a careless refactoring left it: `flags.changed` renamed to `flag.changed`,
/// `initialized` no longer sticky (the replay rule was dropped), and an `error` payload whose wire
/// form loses its message.
enum DriftedFlagEvent: String, EventCatalog {
    case initialized
    case flagsChanged = "flag.changed"
    case error

    typealias Payload = DriftedFlagPayload
}

/// The payload of ``DriftedFlagEvent``.
enum DriftedFlagPayload: WireCodablePayload, Equatable {
    case initialized
    case flagsChanged([String])
    case error(String)

    var event: DriftedFlagEvent {
        switch self {
        case .initialized: .initialized
        case .flagsChanged: .flagsChanged
        case .error: .error
        }
    }

    func encodeData(to encoder: any Encoder) throws {
        switch self {
        case .initialized: break
        case .flagsChanged(let keys): try FlagsChangedPayload(changedKeys: keys).encode(to: encoder)
        case .error(let message): try FlagErrorPayload(message: message).encode(to: encoder)
        }
    }

    init(event: DriftedFlagEvent, dataFrom decoder: any Decoder) throws {
        switch event {
        case .initialized: self = .initialized
        case .flagsChanged: self = .flagsChanged(try FlagsChangedPayload(from: decoder).changedKeys)
        case .error: self = .error("")  // the bug: the message is dropped
        }
    }
}

/// `flags.changed`'s payload struct after a copy-paste slip: its value is an `error`.
struct SlippedFlagsChangedPayload: TypedPayload {
    var changedKeys: [String]

    static var event: FlagEvent { .flagsChanged }

    init(changedKeys: [String]) {
        self.changedKeys = changedKeys
    }

    init?(_ value: FlagEventPayload) {
        guard case .flagsChanged(let payload) = value else { return nil }
        changedKeys = payload.changedKeys
    }

    var payloadValue: FlagEventPayload { .error(FlagErrorPayload(message: changedKeys.joined())) }  // the slip
}

/// `error`'s payload struct whose extraction matches the wrong case.
struct DeafFlagErrorPayload: TypedPayload {
    var message: String

    static var event: FlagEvent { .error }

    init(message: String) {
        self.message = message
    }

    init?(_ value: FlagEventPayload) {
        guard case .initialized = value else { return nil }  // the slip
        message = ""
    }

    var payloadValue: FlagEventPayload { .error(FlagErrorPayload(message: message)) }
}

/// A catalog whose hand-written `allCases` leaves out its middle event.
enum ShortListedEvent: String, EventCatalog {
    case first
    case middle
    case last

    static let allCases: [ShortListedEvent] = [.first, .last]

    typealias Payload = ShortListedPayload
}

/// The payload of ``ShortListedEvent``: the event alone.
enum ShortListedPayload: CatalogPayload {
    case first
    case middle
    case last

    var event: ShortListedEvent {
        switch self {
        case .first: .first
        case .middle: .middle
        case .last: .last
        }
    }
}
