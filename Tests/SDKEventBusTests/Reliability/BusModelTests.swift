import Foundation
import Testing

@testable import SDKEventBus

/// A seeded, model-checked workout of the bus: concurrent tasks subscribe (plain, one-shot,
/// owner-bound), unsubscribe (`off`, synchronous `cancel`, on the main actor or not), release
/// owners, fire and flush, and ``BusModelChecker`` checks every delivery against the rules.
///
/// The seed is printed when a check fails. Replay one with
/// `SDKEVENTBUS_MODEL_SEED=<seed> swift test --filter BusModelTests`; change the size with
/// `SDKEVENTBUS_MODEL_OPERATIONS`.
@Suite(.timeLimit(.minutes(10))) struct BusModelTests {
    static let tasks = 8
    static let events: [SystemEvent] = [.apiQueueReleased, .conversion]
    static let maximumLiveListenersPerTask = 4

    static var environment: [String: String] { ProcessInfo.processInfo.environment }
    static var totalOperations: Int { Int(environment["SDKEVENTBUS_MODEL_OPERATIONS"] ?? "") ?? 1_000_000 }
    static var operationsPerRound: Int { min(50_000, totalOperations) }
    static var baseSeed: UInt64 {
        UInt64(environment["SDKEVENTBUS_MODEL_SEED"] ?? "") ?? UInt64.random(in: 1...UInt64.max / 2)
    }

    @Test func concurrentOperationsMatchTheModel() async throws {
        let seed = Self.baseSeed
        let rounds = max(1, Self.totalOperations / Self.operationsPerRound)
        var deliveries = 0
        for round in 0..<rounds {
            let roundSeed = seed &+ UInt64(round) &* 0x9E37_79B9
            let result = await Self.runRound(seed: roundSeed, operations: Self.operationsPerRound)
            deliveries += result.deliveries
            try #require(
                result.violations.isEmpty,
                """
                model violated in round \(round) (replay with SDKEVENTBUS_MODEL_SEED=\(seed)):
                \(result.violations.joined(separator: "\n"))
                """
            )
        }
        print(
            "BusModelTests: \(rounds * Self.operationsPerRound) operations, \(deliveries) deliveries checked, seed \(seed)"
        )
        #expect(deliveries > 0)
    }

    struct RoundResult {
        var violations: [String]
        var deliveries: Int
    }

    /// One round on a fresh bus: `operations` operations split between the tasks.
    static func runRound(seed: UInt64, operations: Int) async -> RoundResult {
        let (bus, emitter) = EventBus.makeBus()
        let checker = BusModelChecker()
        let modelIDs = LockedValue(0)
        let perTask = operations / tasks
        let liveCounts = await withTaskGroup(of: [SystemEvent: Int].self) { group in
            for task in 0..<tasks {
                group.addTask {
                    var worker = Worker(
                        task: task,
                        bus: bus,
                        emitter: emitter,
                        checker: checker,
                        modelIDs: modelIDs,
                        random: SplitMix64(seed: seed &+ UInt64(task))
                    )
                    await worker.run(operations: perTask)
                    return await worker.finish()
                }
            }
            var totals: [SystemEvent: Int] = [:]
            for await counts in group { totals.merge(counts, uniquingKeysWith: +) }
            return totals
        }
        await bus.flush()
        var violations = await checker.violations
        for event in events {
            let counted = bus.listenerCount(for: event)
            if counted != liveCounts[event, default: 0] {
                violations.append(
                    "listenerCount(for: \(event)) is \(counted); the model has \(liveCounts[event, default: 0])")
            }
        }
        emitter.shutdown()
        if bus.storage.registryFootprint != 0 {
            violations.append("storage not back to its baseline after shutdown: \(bus.storage.registryFootprint)")
        }
        return RoundResult(violations: violations, deliveries: await checker.deliveries)
    }

    /// An object that owns subscriptions; released on the main actor so that its end is atomic with
    /// delivery.
    final class Owner: Sendable {}

    @MainActor
    final class OwnerBox {
        var owners: [Int: Owner] = [:]
    }

    /// One task's stream of operations.
    struct Worker {
        enum Ending {
            case plain
            case once
            case owned
        }

        struct Live {
            let model: Int
            let token: EventListenerToken
            let event: SystemEvent
            let kind: Ending
        }

        let task: Int
        let bus: EventBus
        let emitter: EventEmitter
        let checker: BusModelChecker
        let modelIDs: LockedValue<Int>
        var random: SplitMix64
        var live: [Live] = []
        var nextSequence: [SystemEvent: Int] = [:]
        let owners = OwnerBoxHolder()

        /// Holds the main-actor box of owners; created on first use.
        final class OwnerBoxHolder: Sendable {
            let box = LockedValue<OwnerBox?>(nil)
        }

        mutating func run(operations: Int) async {
            for _ in 0..<operations {
                switch Int.random(in: 0..<100, using: &random) {
                case 0..<30: await fire()
                case 30..<45: await subscribe(.plain)
                case 45..<52: await subscribe(.once)
                case 52..<60: await subscribe(.owned)
                case 60..<70: await unsubscribe(onMain: false, synchronously: false)
                case 70..<77: await unsubscribe(onMain: false, synchronously: true)
                case 77..<85: await unsubscribe(onMain: true, synchronously: true)
                case 85..<90: await releaseOwner()
                default: await flushAndCheck()
                }
            }
        }

        mutating func fire() async {
            let event = BusModelTests.events.randomElement(using: &random)!
            let sequence = nextSequence[event, default: 0]
            nextSequence[event] = sequence + 1
            let payload: EventPayloadValue =
                switch event {
                case .apiQueueReleased: .apiQueueReleased(ApiQueueReleasedPayload(eventCount: task << 32 | sequence))
                default: .conversion(ConversionPayload(goalId: "\(task)", visitorId: "\(sequence)"))
                }
            emitter.fire(payload)
        }

        static func key(of payload: EventPayloadValue) -> BusModelChecker.FireKey {
            switch payload {
            case .apiQueueReleased(let released):
                BusModelChecker.FireKey(
                    event: payload.event,
                    producer: released.eventCount >> 32,
                    sequence: released.eventCount & 0xFFFF_FFFF
                )
            case .conversion(let conversion):
                BusModelChecker.FireKey(
                    event: payload.event,
                    producer: Int(conversion.goalId)!,
                    sequence: Int(conversion.visitorId)!
                )
            default:
                BusModelChecker.FireKey(event: payload.event, producer: -1, sequence: -1)
            }
        }

        mutating func subscribe(_ kind: Ending) async {
            guard live.count < BusModelTests.maximumLiveListenersPerTask else {
                await unsubscribe(onMain: false, synchronously: false)
                return
            }
            let event = BusModelTests.events.randomElement(using: &random)!
            let model = modelIDs.withLock { id in
                id += 1
                return id
            }
            let checker = self.checker
            let state = BusModelChecker.ListenerState(
                owner: task,
                event: event,
                isOnce: kind == .once,
                firstOwnSequence: nextSequence[event, default: 0]
            )
            await checker.register(model, state)
            let token: EventListenerToken
            switch kind {
            case .plain:
                token = bus.on(event) { payload in checker.delivered(Self.key(of: payload), to: model) }
            case .once:
                token = bus.once(event) { payload in checker.delivered(Self.key(of: payload), to: model) }
            case .owned:
                let owner = Owner()
                token = bus.on(event, owner: owner) { _, payload in
                    checker.delivered(Self.key(of: payload), to: model)
                }
                await ownerBox().set(owner, for: model)
            }
            await checker.setListenerID(token.listenerID, for: model)
            live.append(Live(model: model, token: token, event: event, kind: kind))
        }

        mutating func unsubscribe(onMain: Bool, synchronously: Bool) async {
            guard !live.isEmpty else { return }
            let ending = live.remove(at: Int.random(in: 0..<live.count, using: &random))
            let bus = self.bus
            let checker = self.checker
            if onMain {
                await MainActor.run {
                    bus.cancel(ending.token)
                    checker.endOnMain(ending.model)
                }
            } else {
                if synchronously { bus.cancel(ending.token) } else { await bus.off(ending.token) }
                await checker.endOffMain(ending.model)
            }
            if ending.kind == .owned { await ownerBox().release(ending.model) }
        }

        mutating func releaseOwner() async {
            guard let index = live.firstIndex(where: { $0.kind == .owned }) else { return }
            let ending = live.remove(at: index)
            let checker = self.checker
            let box = await ownerBox()
            await MainActor.run {
                box.owners[ending.model] = nil
                checker.endOnMain(ending.model)
            }
        }

        mutating func flushAndCheck() async {
            await bus.flush()
            let models = Set(live.filter { $0.kind != .once }.map(\.model))
            let next = nextSequence
            let task = self.task
            let checker = self.checker
            await MainActor.run { checker.checkCompleteness(owner: task, nextSequence: next, live: models) }
        }

        /// Ends the round for this task: reports how many subscriptions it still holds per event.
        ///
        /// Owner-bound subscriptions are not counted: the task's owners are released with it, so the
        /// bus must sweep those subscriptions away by itself.
        func finish() async -> [SystemEvent: Int] {
            var counts: [SystemEvent: Int] = [:]
            for subscription in live where subscription.kind == .plain {
                counts[subscription.event, default: 0] += 1
            }
            // One-shot listeners may or may not have fired yet; end them so that counts are exact.
            for subscription in live where subscription.kind == .once {
                await bus.off(subscription.token)
            }
            return counts
        }

        func ownerBox() async -> OwnerBox {
            if let box = owners.box.withLock({ $0 }) { return box }
            let box = await MainActor.run { OwnerBox() }
            owners.box.withLock { $0 = box }
            return box
        }
    }
}

extension BusModelTests.OwnerBox {
    func set(_ owner: BusModelTests.Owner, for model: Int) { owners[model] = owner }
    func release(_ model: Int) { owners[model] = nil }
}
