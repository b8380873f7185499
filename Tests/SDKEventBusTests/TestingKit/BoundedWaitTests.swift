import Foundation
import SDKEventBusTesting
import Testing

@testable import SDKEventBus
@testable import SDKEventBusConfig
@testable import SDKEventBusCore
@testable import SDKEventBusWire

/// Every wait the package offers tests is bounded and honours cancellation: a test whose code never
/// does what it waits for fails with a sentence saying what the wait saw and what it expected,
/// instead of hanging; a cancelled test ends at once.
@Suite(.timeLimit(.minutes(1))) struct BoundedWaitTests {
    static let conversion = EventPayloadValue.conversion(ConversionPayload(goalId: "g", visitorId: "v"))
    static let fetchStarted = LifecycleDiagnostic.fetchStarted(attempt: 1)

    /// One wait, set up so that what it waits for never happens.
    struct KitWait: Sendable, CustomTestStringConvertible {
        /// The wait, ready to run with a bound, and what to tidy afterwards.
        struct Prepared: Sendable {
            var wait: @Sendable (TimeInterval) async throws -> Void
            /// The hook's entries for waits in progress, where the kit exposes them.
            var bookkeeping: (@Sendable () -> Int)?
            var tidy: @Sendable () async -> Void = {}
        }

        let name: String
        /// What the timeout says after "waited <bound> for ".
        let message: String
        let prepare: @Sendable () async throws -> Prepared

        var testDescription: String { name }
    }

    static let waits: [KitWait] = [
        KitWait(name: "ScriptedConfigFetchService.waitForFetches", message: "2 fetch(es) to start; saw 1") {
            let service = MockConfigFetchService([.hang])
            let fetch = Task { try await service.fetchLiveConfig() }
            try await service.waitForFetches(1)
            return .init(wait: { try await service.waitForFetches(2, within: $0) }, tidy: { fetch.cancel() })
        },
        KitWait(
            name: "ScriptedConfigFetchService.waitForFinishedFetches",
            message: "1 fetch(es) to end; saw 0 ended of 1 started"
        ) {
            let service = MockConfigFetchService([.hang])
            let fetch = Task { try await service.fetchLiveConfig() }
            try await service.waitForFetches(1)
            return .init(wait: { try await service.waitForFinishedFetches(1, within: $0) }, tidy: { fetch.cancel() })
        },
        KitWait(
            name: "TestClock.waitForSleepers",
            message: "2 task(s) to sleep on the test clock; saw 1 sleeping at 0.0 seconds"
        ) {
            let clock = TestClock()
            let sleeper = Task { try await clock.sleep(until: 1) }
            try await clock.waitForSleepers(1)
            return .init(
                wait: { try await clock.waitForSleepers(2, within: $0) },
                bookkeeping: { clock.bookkeepingCount - 1 },
                tidy: { sleeper.cancel() }
            )
        },
        KitWait(
            name: "TestClock.timeUntilNextDeadline",
            message: "1 task(s) to sleep on the test clock; saw 0 sleeping at 0.0 seconds"
        ) {
            let clock = TestClock()
            return .init(
                wait: { _ = try await clock.timeUntilNextDeadline(within: $0) }, bookkeeping: { clock.bookkeepingCount }
            )
        },
        KitWait(
            name: "TestClock.advanceToNextDeadline",
            message: "1 task(s) to sleep on the test clock; saw 0 sleeping at 0.0 seconds"
        ) {
            let clock = TestClock()
            return .init(
                wait: { try await clock.advanceToNextDeadline(within: $0) }, bookkeeping: { clock.bookkeepingCount })
        },
        KitWait(name: "EventRecorder.next", message: "2 more event(s) after the first 0; saw 1 event(s): \(conversion)")
        {
            let recorder = try recorderWithOneConversion()
            return .init(wait: { try await recorder.next(2, within: $0) }, bookkeeping: { recorder.waiterCount })
        },
        KitWait(name: "EventRecorder.waitUntil", message: "two conversions; saw 1 event(s): \(conversion)") {
            let recorder = try recorderWithOneConversion()
            return .init(
                wait: { try await recorder.waitUntil("two conversions", within: $0) { $0.count == 2 } },
                bookkeeping: { recorder.waiterCount }
            )
        },
        KitWait(name: "EventRecorder.waitForCount", message: "2 event(s) in all; saw 1 event(s): \(conversion)") {
            let recorder = try recorderWithOneConversion()
            return .init(
                wait: { try await recorder.waitForCount(2, within: $0) }, bookkeeping: { recorder.waiterCount })
        },
        KitWait(name: "LifecycleRecorder.wait", message: "2 × a fetch; saw 1 step(s): \(fetchStarted)") {
            let steps = LifecycleRecorder()
            steps.handler(fetchStarted)
            return .init(
                wait: { timeout in
                    try await steps.wait(for: 2, "a fetch", within: timeout) {
                        if case .fetchStarted = $0 { return true } else { return false }
                    }
                },
                bookkeeping: { steps.waiterCount }
            )
        },
        KitWait(name: "LifecycleRecorder.next", message: "a stop; saw 1 step(s): \(fetchStarted)") {
            let steps = LifecycleRecorder()
            steps.handler(fetchStarted)
            return .init(
                wait: { timeout in
                    try await steps.next("a stop", within: timeout) {
                        if case .stopped = $0 { return true } else { return false }
                    }
                },
                bookkeeping: { steps.waiterCount }
            )
        },
        KitWait(name: "ConfigStore.waitForReadyWaiters", message: "1 caller(s) waiting for readiness; saw 0") {
            let store = ConfigStore(emitter: EventBus.makeBus().emitter)
            return .init(wait: { try await store.waitForReadyWaiters(1, within: $0) })
        },
        KitWait(name: "SDKClient.waitForReadyWaiters", message: "1 caller(s) waiting for readiness; saw 0") {
            let client = SDKClient(fetchService: MockConfigFetchService([.hang]))
            return .init(
                wait: { try await client.waitForReadyWaiters(1, within: $0) }, tidy: { await client.shutdown() })
        },
    ]

    /// A recorder that has recorded one conversion.
    static func recorderWithOneConversion() throws -> EventRecorder<SystemEvent> {
        let (bus, emitter) = EventBus.makeBus()
        let recorder = EventRecorder(bus, delivery: .immediate)
        emitter.fire(conversion)
        try #require(recorder.count == 1)
        return recorder
    }

    @Test(arguments: waits)
    func eachWaitThrowsWhenItsBoundPassesSayingWhatItExpectedAndSaw(_ kit: KitWait) async throws {
        let prepared = try await kit.prepare()
        let error = await #expect(throws: WaitTimeoutError.self) { try await prepared.wait(0.02) }
        #expect(error?.description == "waited 0.02 seconds for \(kit.message)")
        #expect(error?.timeout == 0.02)
        if let bookkeeping = prepared.bookkeeping { #expect(bookkeeping() == 0, "the ended wait is forgotten") }
        await prepared.tidy()
    }

    @Test(arguments: waits)
    func eachWaitEndsWithCancellationAtOnceWhenItsTaskIsCancelled(_ kit: KitWait) async throws {
        let prepared = try await kit.prepare()
        // The default bound is 30 s: a wait that ignored cancellation would end with a timeout.
        let waiting = Task { try await prepared.wait(WaitTimeoutError.defaultTimeout) }
        waiting.cancel()
        await #expect(throws: CancellationError.self) { try await waiting.value }
        if let bookkeeping = prepared.bookkeeping { #expect(bookkeeping() == 0, "the cancelled wait is forgotten") }
        await prepared.tidy()
    }

    @Test(arguments: waits)
    func eachWaitStartedByACancelledTaskEndsWithCancellationAtOnce(_ kit: KitWait) async throws {
        let prepared = try await kit.prepare()
        let waiting = Task {
            withUnsafeCurrentTask { $0?.cancel() }
            try await prepared.wait(WaitTimeoutError.defaultTimeout)
        }
        await #expect(throws: CancellationError.self) { try await waiting.value }
        if let bookkeeping = prepared.bookkeeping { #expect(bookkeeping() == 0, "the cancelled wait is forgotten") }
        await prepared.tidy()
    }

    @Test func aBoundThatPassesBeforeTheWaitRegistersStillEndsIt() async throws {
        let clock = TestClock()
        let error = await #expect(throws: WaitTimeoutError.self) { try await clock.waitForSleepers(1, within: .zero) }
        #expect(error?.observed == "0 sleeping at 0.0 seconds")
        #expect(clock.bookkeepingCount == 0)
    }

    @Test func aWaitWhoseConditionHoldsReturnsEvenWithAZeroBound() async throws {
        let clock = TestClock()
        let sleeper = Task { try await clock.sleep(until: 1) }
        try await clock.waitForSleepers(1)
        try await clock.waitForSleepers(1, within: .zero)
        #expect(try await clock.advanceToNextDeadline(within: .zero) == 1)
        try await sleeper.value
    }

    @Test func advanceToNextDeadlineThatTimesOutLeavesTheClockWhereItWas() async {
        let clock = TestClock()
        clock.advance(by: 5)
        await #expect(throws: WaitTimeoutError.self) { try await clock.advanceToNextDeadline(within: 0.001) }
        #expect(clock.now == 5)
    }
}
