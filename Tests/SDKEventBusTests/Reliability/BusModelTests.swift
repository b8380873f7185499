import Foundation
import Testing

@testable import SDKEventBus
@testable import SDKEventBusConfig
@testable import SDKEventBusCore
@testable import SDKEventBusWire

/// A seeded, model-checked workout of the bus: concurrent tasks subscribe in every delivery
/// context (main actor, two actors, immediate; plain, one-shot, owner-bound), end subscriptions
/// (`off` from any task, synchronous `cancel` on another thread or on the delivering executor,
/// releasing owners), fire and flush, and ``BusModelChecker`` checks every delivery against the
/// rules, on whatever thread it happens.
///
/// The seed is printed when a check fails. Replay one with
/// `SDKEVENTBUS_MODEL_SEED=<seed> swift test --filter BusModelTests`; change the size with
/// `SDKEVENTBUS_MODEL_OPERATIONS`.
@Suite(.timeLimit(.minutes(10))) struct BusModelTests {
    static let tasks = 8
    static let events: [SystemEvent] = [.apiQueueReleased, .conversion]
    static let maximumLiveListenersPerTask = 4

    static var environment: [String: String] { ProcessInfo.processInfo.environment }
    /// A million operations; a quarter of that under the thread sanitizer, which slows every
    /// operation about tenfold and checks each interleaving it sees rather than needing many.
    static var totalOperations: Int {
        Int(environment["SDKEVENTBUS_MODEL_OPERATIONS"] ?? "") ?? (isThreadSanitized ? 250_000 : 1_000_000)
    }
    /// Whether the thread sanitizer's runtime is loaded in this process.
    static let isThreadSanitized: Bool = {
        #if canImport(Darwin)
            let everyImage = UnsafeMutableRawPointer(bitPattern: -2)  // RTLD_DEFAULT
        #else
            let everyImage: UnsafeMutableRawPointer? = nil  // RTLD_DEFAULT
        #endif
        return dlsym(everyImage, "__tsan_init") != nil
    }()
    static var operationsPerRound: Int { min(50_000, totalOperations) }
    static var baseSeed: UInt64 {
        UInt64(environment["SDKEVENTBUS_MODEL_SEED"] ?? "") ?? UInt64.random(in: 1...UInt64.max / 2)
    }

    /// The kinds of bus the workout drives: both run on the one engine, through different fronts.
    enum BusKind: String, CaseIterable, CustomStringConvertible, Sendable {
        /// An SDK's catalog bus, fired through its emitter.
        case catalog
        /// An app-event bus, events published and subscribed to by type.
        case appEvents

        var description: String { rawValue }

        /// The share of the operations this kind runs: the catalog bus carries the full workout.
        var operations: Int {
            switch self {
            case .catalog: BusModelTests.totalOperations
            case .appEvents: BusModelTests.totalOperations / 4
            }
        }
    }

    @Test(arguments: BusKind.allCases)
    func concurrentOperationsMatchTheModel(on kind: BusKind) async throws {
        let seed = Self.baseSeed
        let rounds = max(1, kind.operations / Self.operationsPerRound)
        var deliveries = 0
        for round in 0..<rounds {
            let roundSeed = seed &+ UInt64(round) &* 0x9E37_79B9
            let result = await Self.runRound(kind, seed: roundSeed, operations: Self.operationsPerRound)
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
            "BusModelTests (\(kind)): \(rounds * Self.operationsPerRound) operations, \(deliveries) deliveries checked, seed \(seed)"
        )
        #expect(deliveries > 0)
    }

    struct RoundResult {
        var violations: [String]
        var deliveries: Int
    }

    /// One round on a fresh bus: `operations` operations split between the tasks.
    static func runRound(_ kind: BusKind, seed: UInt64, operations: Int) async -> RoundResult {
        let bus: any ModelBus =
            switch kind {
            case .catalog: CatalogModelBus()
            case .appEvents: AppModelBus()
            }
        let checker = BusModelChecker()
        let modelIDs = LockedValue(0)
        let actors = [ModelActor(), ModelActor()]
        let perTask = operations / tasks
        let liveCounts = await withTaskGroup(of: [SystemEvent: Int].self) { group in
            for task in 0..<tasks {
                group.addTask {
                    var worker = Worker(
                        task: task,
                        bus: bus,
                        checker: checker,
                        modelIDs: modelIDs,
                        actors: actors,
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
        var violations = checker.violations
        for event in events {
            let counted = bus.listenerCount(for: event)
            if counted != liveCounts[event, default: 0] {
                violations.append(
                    "listenerCount(for: \(event)) is \(counted); the model has \(liveCounts[event, default: 0])")
            }
        }
        // The bus holds listeners' actors weakly and ends their subscriptions when they go: the
        // model's counts hold only while the actors live, which an optimised build would otherwise
        // end after their last use, before the counting.
        withExtendedLifetime(actors) {}
        bus.shutdown()
        if bus.storage.footprint.entries != 0 {
            violations.append("storage not back to its baseline after shutdown: \(bus.storage.footprint.entries)")
        }
        return RoundResult(violations: violations, deliveries: checker.deliveries)
    }

    /// An object that owns subscriptions; released on the main actor so that its end is atomic with
    /// delivery.
    final class Owner: Sendable {}

    /// An actor that listeners are isolated to.
    actor ModelActor {
        /// Runs `body` isolated to the actor: where its listeners' callbacks run.
        func run(_ body: @Sendable () -> Void) {
            body()
        }
    }

    @MainActor
    final class OwnerBox {
        var owners: [Int: Owner] = [:]
    }

    /// One task's stream of operations.
    struct Worker {
        enum Kind {
            case plain
            case once
            case owned
        }

        struct Live {
            let model: Int
            let token: EventListenerToken
            let event: SystemEvent
            let kind: Kind
            let lane: BusModelChecker.Lane
        }

        let task: Int
        let bus: any ModelBus
        let checker: BusModelChecker
        let modelIDs: LockedValue<Int>
        let actors: [ModelActor]
        var random: SplitMix64
        var live: [Live] = []
        var nextSequence: [SystemEvent: Int] = [:]
        let owners = OwnerBoxHolder()

        /// Holds the main-actor box of owners; created on first use.
        final class OwnerBoxHolder: Sendable {
            let box = LockedValue<OwnerBox?>(nil)
        }

        mutating func run(operations: Int) async {
            for operation in 0..<operations {
                // Many operations never suspend: yielding now and then keeps the run from holding a
                // thread of the cooperative pool (two, on CI) while suites in parallel wait for one.
                if operation % 64 == 0 { await Task.yield() }
                switch Int.random(in: 0..<100, using: &random) {
                case 0..<30: await fire()
                case 30..<38: await subscribe(.plain, lane: .mainActor)
                case 38..<42: await subscribe(.once, lane: .mainActor)
                case 42..<46: await subscribe(.owned, lane: .mainActor)
                case 46..<51: await subscribe(.plain, lane: .immediate)
                case 51..<53: await subscribe(.once, lane: .immediate)
                case 53..<58: await subscribe(.plain, lane: .actor(Int.random(in: 0..<2, using: &random)))
                case 58..<60: await subscribe(.once, lane: .actor(Int.random(in: 0..<2, using: &random)))
                case 60..<71: await end(.off)
                case 71..<78: await end(.cancelElsewhere)
                case 78..<85: await end(.cancelOnExecutor)
                case 85..<90: await releaseOwner()
                default: await flushAndCheck()
                }
            }
        }

        mutating func fire() async {
            let event = BusModelTests.events.randomElement(using: &random)!
            let sequence = nextSequence[event, default: 0]
            nextSequence[event] = sequence + 1
            bus.fire(BusModelChecker.FireKey(event: event, producer: task, sequence: sequence))
        }

        mutating func subscribe(_ kind: Kind, lane: BusModelChecker.Lane) async {
            guard live.count < BusModelTests.maximumLiveListenersPerTask else {
                await end(.off)
                return
            }
            let event = BusModelTests.events.randomElement(using: &random)!
            let model = modelIDs.withLock { id in
                id += 1
                return id
            }
            let checker = self.checker
            checker.register(
                model,
                BusModelChecker.ListenerState(
                    owner: task,
                    event: event,
                    lane: lane,
                    isOnce: kind == .once,
                    firstOwnSequence: nextSequence[event, default: 0]
                )
            )
            let deliver: @Sendable (BusModelChecker.FireKey) -> Void = { key in
                checker.delivering(key, to: model)
                checker.finished(model)
            }
            let token: EventListenerToken
            switch (kind, lane) {
            case (.owned, _):
                let owner = Owner()
                token = bus.subscribe(event, owned: owner, deliver: deliver)
                await ownerBox().set(owner, for: model)
            case (.plain, _), (.once, _):
                let isolation = lane.actorIndex.map { actors[$0] }
                token = bus.subscribe(event, lane: lane, isolation: isolation, once: kind == .once, deliver: deliver)
            }
            checker.setListenerID(token.listenerID, for: model)
            live.append(
                Live(model: model, token: token, event: event, kind: kind, lane: kind == .owned ? .mainActor : lane))
        }

        enum End {
            /// `await off`, from this task.
            case off
            /// Synchronous `cancel` from this task's thread, which does not deliver to it.
            case cancelElsewhere
            /// Synchronous `cancel` on the executor that delivers to it; `off` for the immediate lane.
            case cancelOnExecutor
        }

        mutating func end(_ how: End) async {
            guard !live.isEmpty else { return }
            let ending = live.remove(at: Int.random(in: 0..<live.count, using: &random))
            let bus = self.bus
            let checker = self.checker
            let model = ending.model
            switch (how, ending.lane) {
            case (.off, _), (.cancelOnExecutor, .immediate):
                await bus.off(ending.token)
                checker.endedExactly(model, by: "off")
            case (.cancelElsewhere, _):
                ending.token.cancel()
                checker.cancelledElsewhere(model)
            case (.cancelOnExecutor, .mainActor):
                await MainActor.run {
                    ending.token.cancel()
                    checker.endedExactly(model, by: "cancel on the main actor")
                }
            case (.cancelOnExecutor, .actor(let index)):
                await actors[index].run {
                    ending.token.cancel()
                    checker.endedExactly(model, by: "cancel on its actor")
                }
            }
            if ending.kind == .owned { await ownerBox().release(model) }
        }

        mutating func releaseOwner() async {
            guard let index = live.firstIndex(where: { $0.kind == .owned }) else { return }
            let ending = live.remove(at: index)
            let checker = self.checker
            let box = await ownerBox()
            await MainActor.run {
                box.owners[ending.model] = nil
                checker.endedExactly(ending.model, by: "releasing its owner on the main actor")
            }
        }

        mutating func flushAndCheck() async {
            await bus.flush()
            checker.flushed(by: task)
            let models = Set(live.filter { $0.kind != .once }.map(\.model))
            checker.checkCompleteness(owner: task, nextSequence: nextSequence, live: models)
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
                checker.endedExactly(subscription.model, by: "off")
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
