import Foundation
import SDKEventBusTesting
import Testing

@testable import SDKEventBus
@_spi(Testing) @testable import SDKEventBusConfig
@testable import SDKEventBusCore
@testable import SDKEventBusWire

/// Ten thousand waiters racing readiness, refreshes, cancellation, timeouts and shutdown.
///
/// A seeded driver plays a shuffled schedule of those actions while the waiters suspend and resume;
/// the seed decides, for example, whether the timeout or the shutdown comes before the first
/// configuration. Replay one with `SDKEVENTBUS_MODEL_SEED=<seed>`.
@Suite(.timeLimit(.minutes(5))) struct ReadinessUnderFireTests {
    /// How a waiter ended.
    ///
    /// Each waiter records exactly one.
    enum Outcome: String, Hashable {
        case ready
        case cancelled
        case timedOut
        case shutDown
    }

    /// One step of the driver's schedule.
    enum Action {
        case cancel(ArraySlice<Int>)
        case advanceClock
        case setConfig(Int)
        case shutDown
    }

    /// Counts outcomes across tasks.
    final class Tally: Sendable {
        private let counts = LockedValue([Outcome: Int]())
        func record(_ outcome: Outcome) { counts.withLock { $0[outcome, default: 0] += 1 } }
        var snapshot: [Outcome: Int] { counts.withLock { $0 } }
    }

    /// Which kind of action the schedule starts with; the seed shuffles the rest.
    enum First: String, CaseIterable {
        case cancellations
        case timeout
        case shutdown
        case configuration
    }

    static let waiterCount = 10_000
    static let timedCount = 1_000
    static let seed =
        UInt64(ProcessInfo.processInfo.environment["SDKEVENTBUS_MODEL_SEED"] ?? "") ?? .random(in: 1...1 << 62)

    static func outcome(of error: any Error) -> Outcome? {
        switch error {
        case is CancellationError: .cancelled
        case ReadinessError.timedOut: .timedOut
        case ReadinessError.shutDown: .shutDown
        default: nil
        }
    }

    @Test(arguments: First.allCases)
    func tenThousandWaitersAreEachResumedExactlyOnce(first: First) async throws {
        let seed = Self.seed
        var random = SplitMix64(seed: seed)
        let (bus, emitter) = EventBus.makeBus()
        let store = ConfigStore(emitter: emitter)
        let clock = TestClock()
        let tally = Tally()
        let readyEvents = EventRecorder(bus, events: [.ready])

        func makeWaiter(timed: Bool) -> Task<Void, Never> {
            Task {
                do {
                    if timed {
                        try await store.waitForReady(timeout: 1, clock: clock)
                    } else {
                        try await store.waitForReady()
                    }
                    tally.record(.ready)
                } catch {
                    if let outcome = Self.outcome(of: error) { tally.record(outcome) }
                }
            }
        }
        // The timed waiters first, until each sleeps on the clock: nothing can resume them yet.
        var waiters = (0..<Self.timedCount).map { _ in makeWaiter(timed: true) }
        try await clock.waitForSleepers(Self.timedCount)
        waiters += (Self.timedCount..<Self.waiterCount).map { _ in makeWaiter(timed: false) }

        // A shuffled schedule: a third of the waiters cancelled in ten batches, one clock advance,
        // twenty configurations, and shutdown.
        let doomed = waiters.indices.shuffled(using: &random).prefix(Self.waiterCount / 3)
        var schedule: [Action] = stride(from: doomed.startIndex, to: doomed.endIndex, by: doomed.count / 10).map {
            .cancel(doomed[$0..<min($0 + doomed.count / 10, doomed.endIndex)])
        }
        schedule += [.advanceClock, .shutDown] + (0..<20).map { .setConfig($0) }
        schedule.shuffle(using: &random)
        let lead = schedule.firstIndex { action in
            switch (first, action) {
            case (.cancellations, .cancel), (.timeout, .advanceClock), (.shutdown, .shutDown),
                (.configuration, .setConfig):
                true
            default: false
            }
        }!
        schedule.swapAt(0, lead)
        let configs = (0..<20).map { Fixtures.config(named: "config \($0)") }
        // How far the waiters get between two steps: a seeded number of yields, not a wait.
        let yieldsBetweenSteps = Int.random(in: 0..<50, using: &random)
        let (steps, allWaiters) = (schedule, waiters)
        let driver = Task {
            for action in steps {
                switch action {
                case .cancel(let indices): for index in indices { allWaiters[index].cancel() }
                case .advanceClock: clock.advance(by: 1)
                case .setConfig(let index): await store.setConfig(configs[index])
                case .shutDown: store.shutdown()
                }
                await varyInterleaving(yielding: yieldsBetweenSteps)
            }
        }
        await driver.value
        for waiter in waiters { await waiter.value }
        await bus.flush()

        let outcomes = tally.snapshot
        let summary = outcomes.sorted { $0.key.rawValue < $1.key.rawValue }.map { "\($0.key): \($0.value)" }
        print("ReadinessUnderFireTests: \(first) first, seed \(seed): \(summary.joined(separator: ", "))")
        #expect(outcomes.values.reduce(0, +) == Self.waiterCount, "every waiter resumed exactly once (seed \(seed))")
        #expect(store.readinessWaiters.count == 0, "no waiter left registered")
        #expect(clock.sleeperCount == 0, "no timer left running")
        let becameReady = store.config != nil
        #expect(store.isReady == false, "a shut-down store is not ready")
        #expect(readyEvents.count == (becameReady ? 1 : 0), ".ready fired once, and only if a config arrived")
        if !becameReady { #expect(outcomes[.ready] == nil, "nobody saw a readiness that never happened") }
        if let config = store.config { #expect(configs.contains(config)) }
        await #expect(throws: ReadinessError.shutDown) { try await store.waitForReady() }
    }
}
