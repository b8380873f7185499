import Foundation
@_spi(Testing) import SDKEventBusConfig
import SDKEventBusTesting
import SDKEventBusWire
import Testing

/// A catalog slip stops the SDK's debug build with a message that names it, instead of
/// delivering where nobody listens: a payload struct whose value is another event's, and an event
/// missing from a hand-written `allCases` (which used to reach the first event's listeners).
///
/// The traps run in exit tests (a child process); the messages are also checked directly.
@Suite struct CatalogSlipTests {
    static let slipMessage =
        "SlippedFlagsChangedPayload.event is flags.changed, but its payloadValue is a payload of error: "
        + "fired, it would reach error listeners and no flags.changed listener; "
        + "make payloadValue wrap the flags.changed case"

    @Test func aPayloadStructsSlipIsDiagnosedNamingBothEvents() {
        let slipped = SlippedFlagsChangedPayload(changedKeys: ["a"])
        #expect(SlippedFlagsChangedPayload.eventSlip(in: slipped.payloadValue) == Self.slipMessage)
        #expect(FlagsChangedPayload.eventSlip(in: FlagsChangedPayload(changedKeys: ["a"]).payloadValue) == nil)
    }

    #if DEBUG
        @Test func firingAPayloadStructWhoseValueIsAnotherEventsStopsADebugBuild() async {
            let result = await #expect(processExitsWith: .failure, observing: [\.standardErrorContent]) {
                let (bus, emitter) = CatalogBus<FlagEvent>.makeBus()
                _ = bus.on(.error, delivery: .immediate) { _ in }
                emitter.fire(SlippedFlagsChangedPayload(changedKeys: ["a"]))
            }
            let standardError = String(decoding: result?.standardErrorContent ?? [], as: UTF8.self)
            #expect(standardError.contains(Self.slipMessage), "\(standardError.prefix(2_000))")
        }
    #endif

    @Test func firingACorrectPayloadStructDeliversIt() {
        let (bus, emitter) = CatalogBus<FlagEvent>.makeBus()
        let received = LockedValue<[FlagsChangedPayload]>([])
        _ = bus.on(.flagsChanged, delivery: .immediate) { value in
            if let payload = FlagsChangedPayload(value) { received.withLock { $0.append(payload) } }
        }
        emitter.fire(FlagsChangedPayload(changedKeys: ["a"]))
        #expect(received.withLock { $0 } == [FlagsChangedPayload(changedKeys: ["a"])])
    }

    // MARK: A payload case fired as another event

    static let caseSlipMessage =
        "MisroutedPayload.stop is fired as start, but it is named after the event stop: "
        + "it would reach start listeners and no stop listener; fix the case in MisroutedPayload.event"

    @Test func aPayloadCaseNamedAfterOneEventButFiredAsAnotherIsDiagnosedNamingBoth() {
        #expect(MisroutedPayload.stop(reason: "done").eventSlip == Self.caseSlipMessage)
        #expect(MisroutedPayload.start.eventSlip == nil)
        #expect(FlagEventPayload.samples.allSatisfy { $0.eventSlip == nil }, "the flag catalog maps every case")
    }

    @Test func conformanceNamesAPayloadCaseFiredAsAnotherEvent() {
        let check = CatalogConformance<MisroutedEvent>(
            rawValues: ["start", "stop"], samples: [.start, .stop(reason: "done")])
        #expect(check.problems.contains(Self.caseSlipMessage), "\(check.problems)")
    }

    @Test func aSlippedSamplesWireProblemNamesTheSampleNotTheEventItSlippedTo() {
        let check = CatalogConformance<MisroutedEvent>(
            rawValues: ["start", "stop"], samples: [.start, .stop(reason: "done")])
        let wire = check.problems.filter { $0.hasPrefix("the sample ") }
        #expect(wire.count == 1 && wire[0].hasPrefix("the sample stop(reason: \"done\") (fired as start)"), "\(wire)")
    }

    #if DEBUG
        @Test func firingAPayloadCaseAsAnotherEventStopsADebugBuild() async {
            let result = await #expect(processExitsWith: .failure, observing: [\.standardErrorContent]) {
                let (_, emitter) = CatalogBus<MisroutedEvent>.makeBus()
                emitter.fire(.stop(reason: "done"))
            }
            let standardError = String(decoding: result?.standardErrorContent ?? [], as: UTF8.self)
            #expect(standardError.contains(Self.caseSlipMessage), "\(standardError.prefix(2_000))")
        }
    #endif

    // MARK: What the check costs

    #if DEBUG
        /// A bus checks an event's payload on the event's first fire only.
        ///
        /// The check reflects on the payload and prints every event's name: run at every fire, it made
        /// a debug build's fire to one immediate listener about 20× a lock-and-array bus's.
        @Test func aDebugBuildChecksAnEventsPayloadOnItsFirstFireOnly() {
            let (_, emitter) = CatalogBus<CountedEvent>.makeBus()
            let reads = LockedValue(0)
            for _ in 0..<100 { emitter.fire(.ping(reads)) }
            // One read per fire (the fire takes the payload's event), and one for the check.
            #expect(reads.withLock { $0 } == 101)
        }

        @Test func aDebugBuildChecksEachEventOfABusOnItsOwnFirstFire() {
            let (_, emitter) = CatalogBus<CountedEvent>.makeBus()
            let reads = LockedValue(0)
            for _ in 0..<10 { emitter.fire(.pong) }
            for _ in 0..<10 { emitter.fire(.ping(reads)) }
            #expect(reads.withLock { $0 } == 11, "pong's check does not stand for ping's")
            let (_, other) = CatalogBus<CountedEvent>.makeBus()
            other.fire(.ping(reads))
            #expect(reads.withLock { $0 } == 13, "each bus checks for itself")
        }
    #endif

    /// The first fires of an event race to record its check; every fire is still delivered once.
    @Test func concurrentFirstFiresOfAnEventAreEachDeliveredOnce() async {
        let (bus, emitter) = CatalogBus<CountedEvent>.makeBus()
        let received = LockedValue(0)
        _ = bus.on(.pong, delivery: .immediate) { _ in received.withLock { $0 += 1 } }
        await withTaskGroup(of: Void.self) { group in
            for _ in 0..<8 { group.addTask { for _ in 0..<50 { emitter.fire(.pong) } } }
        }
        // A fire returns once its event is queued: while another thread delivers on the immediate
        // lane, or a job took the lane over, delivery may still be running. Await the bus.
        await bus.flush()
        #expect(received.withLock { $0 } == 400)
    }

    // MARK: Events missing from allCases

    static func missingMessage(_ event: String, listed: String) -> String {
        "\(event) (\"\(event.split(separator: ".").last!)\") is not in \(event.split(separator: ".").first!).allCases, "
            + "which lists \(listed): a bus has listeners only for the events allCases lists; "
            + "add it to the hand-written allCases, or let CaseIterable synthesize it"
    }

    @Test func anEventMissingFromAllCasesIsDiagnosedByName() {
        #expect(
            ShortListedEvent.middle.missingFromAllCasesDiagnosis
                == Self.missingMessage("ShortListedEvent.middle", listed: #"["first", "last"]"#))
    }

    /// The middle event is left out: its lookup found nothing and used to fall back to position 0,
    /// the first event's listeners.
    @Test func firingAnEventLeftOutOfAllCasesTraps() async {
        let result = await #expect(processExitsWith: .failure, observing: [\.standardErrorContent]) {
            let (bus, emitter) = CatalogBus<ShortListedEvent>.makeBus()
            _ = bus.on(.first, delivery: .immediate) { _ in print("delivered to first") }
            emitter.fire(.middle)
        }
        let standardError = String(decoding: result?.standardErrorContent ?? [], as: UTF8.self)
        #expect(
            standardError.contains(Self.missingMessage("ShortListedEvent.middle", listed: #"["first", "last"]"#)),
            "\(standardError.prefix(2_000))")
    }

    /// The last event is left out: the other events keep their positions, so the position read
    /// from the value was past the listener buckets.
    @Test func subscribingToTheLastEventLeftOutOfAllCasesTraps() async {
        let result = await #expect(processExitsWith: .failure, observing: [\.standardErrorContent]) {
            let (bus, _) = CatalogBus<TruncatedEvent>.makeBus()
            _ = bus.on(.last, delivery: .immediate) { _ in }
        }
        let standardError = String(decoding: result?.standardErrorContent ?? [], as: UTF8.self)
        #expect(
            standardError.contains(Self.missingMessage("TruncatedEvent.last", listed: #"["first", "middle"]"#)),
            "\(standardError.prefix(2_000))")
    }
}

/// A catalog whose hand-written `allCases` leaves out its last event.
enum TruncatedEvent: String, EventCatalog {
    case first
    case middle
    case last

    static let allCases: [TruncatedEvent] = [.first, .middle]

    typealias Payload = TruncatedPayload
}

/// The payload of ``TruncatedEvent``: the event alone.
enum TruncatedPayload: CatalogPayload {
    case first
    case middle
    case last

    var event: TruncatedEvent {
        switch self {
        case .first: .first
        case .middle: .middle
        case .last: .last
        }
    }
}

/// A catalog whose payload's `event` switch sends one case to another event (a copy-paste slip).
enum MisroutedEvent: String, EventCatalog {
    case start
    case stop

    typealias Payload = MisroutedPayload
}

/// The payload of ``MisroutedEvent``, whose `stop` case is fired as `start`.
enum MisroutedPayload: CatalogPayload, Codable, WireCodablePayload {
    case start
    case stop(reason: String)

    var event: MisroutedEvent {
        switch self {
        case .start: .start
        case .stop: .start  // the slip
        }
    }

    init(event: MisroutedEvent, dataFrom decoder: any Decoder) throws {
        self = event == .start ? .start : .stop(reason: "")
    }
}

/// A catalog whose `ping` payload counts how often its event is read.
enum CountedEvent: String, EventCatalog {
    case ping
    case pong

    typealias Payload = CountedPayload
}

/// The payload of ``CountedEvent``: `ping` carries the count of its event's reads.
enum CountedPayload: CatalogPayload {
    case ping(LockedValue<Int>)
    case pong

    var event: CountedEvent {
        switch self {
        case .ping(let reads):
            reads.withLock { $0 += 1 }
            return .ping
        case .pong:
            return .pong
        }
    }
}
