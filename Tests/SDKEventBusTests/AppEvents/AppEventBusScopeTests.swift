import Foundation
import Testing

@testable import SDKEventBusAppEvents
@testable import SDKEventBusCore

/// What a container promises about its scopes, found by driving it from outside (issue 35): scopes
/// come and go in constant time on average, a bus serves one scope, and no subscription outlives
/// its scope unseen, even one made on another thread while the scope is released.
@Suite(.timeLimit(.minutes(2))) struct AppEventBusScopeTests {
    struct Ping: AppEvent {
        let number: Int
    }

    actor Listener {}

    /// The diagnostics a bus reported.
    final class Reports: Sendable {
        private let reports = LockedValue<[BusDiagnostic]>([])

        var record: @Sendable (BusDiagnostic) -> Void {
            { [self] diagnostic in reports.withLock { $0.append(diagnostic) } }
        }

        /// The buses named by `subscribedToReleasedBus` reports, in order.
        var releasedBusSubscriptions: [String] {
            reports.withLock { reports in
                reports.compactMap { report in
                    guard case .subscribedToReleasedBus(let bus) = report else { return nil }
                    return bus
                }
            }
        }
    }

    /// A scope whose hash value is its `group`: scopes of one group share a hash value, and so a
    /// bucket of the container's table.
    struct CollidingScope: Hashable, Sendable, CustomStringConvertible {
        let group: Int
        let name: Int

        func hash(into hasher: inout Hasher) { hasher.combine(group) }

        var description: String { "\(group)/\(name)" }
    }

    // MARK: 5. Scopes come and go in linear time

    /// Creating or releasing a scope writes a constant number of the table's entries on average,
    /// however many scopes there are.
    ///
    /// Each change touches the scope's bucket, and a resize, which moves every entry, comes after as
    /// many changes as there are entries. (The container used to
    /// copy its whole registry for each change: N scopes wrote N² / 2 entries, and took 25 s at
    /// 40,000.) Counted through the table's own hook, not timed: the benchmark
    /// `container/… scopes created and released` times it.
    @Test(arguments: [1_000, 8_000])
    func scopesComeAndGoWithAConstantAmountOfWorkEachOnAverage(scopes: Int) {
        let container = AppEventBusContainer<Int>()
        for scope in 0..<scopes { _ = container.bus(for: scope) }
        let written = container.entriesWritten
        #expect(written <= 3 * scopes, "one entry per scope, and each resize moves the entries once")
        for scope in 0..<scopes { container.release(scope) }
        #expect(container.scopes.isEmpty)
        #expect(
            container.entriesWritten - written <= scopes,
            "releasing writes no entry but those the shrinking resizes move")
    }

    /// Scopes whose hash values collide share a bucket, and each keeps its own bus through every
    /// change around it.
    @Test func scopesWhoseHashValuesCollideKeepTheirOwnBuses() throws {
        let container = AppEventBusContainer<CollidingScope>()
        let scopes = (0..<300).map { CollidingScope(group: $0 % 3, name: $0) }
        let buses = scopes.map { container.bus(for: $0) }
        #expect(Set(buses.map(ObjectIdentifier.init)).count == scopes.count, "a bus per scope")
        for (scope, bus) in zip(scopes, buses) {
            #expect(container.bus(for: scope) === bus)
            #expect(bus.name == scope.description)
        }
        for scope in scopes where scope.name.isMultiple(of: 2) { #expect(container.release(scope)) }
        for (scope, bus) in zip(scopes, buses) {
            #expect(container.existingBus(for: scope) === (scope.name.isMultiple(of: 2) ? nil : bus))
        }
        let mine = AppEventBus(name: "mine")
        try container.register(mine, for: CollidingScope(group: 1, name: 10))
        #expect(container.existingBus(for: CollidingScope(group: 1, name: 10)) === mine)
        #expect(container.scopes.count == 151)
    }

    /// Seeded random sequences of every operation, checked after each step against a dictionary:
    /// the container keeps every scope's bus through the table's growing and shrinking.
    @Test(arguments: [3_501, 3_502, 3_503])
    func everyScopeKeepsItsBusThroughTheTablesGrowingAndShrinking(seed: UInt64) throws {
        var random = SplitMix64(seed: seed)
        let container = AppEventBusContainer<Int>()
        var model: [Int: AppEventBus] = [:]
        for step in 0..<6_000 {
            // Scopes drift upwards: the table grows to about 1,000 scopes, then shrinks.
            let growing = step < 3_000
            let scope = Int.random(in: 0..<1_200, using: &random)
            switch Int.random(in: 0..<10, using: &random) {
            case 0..<(growing ? 5 : 2):
                let bus = container.bus(for: scope)
                if let known = model[scope] { #expect(bus === known, "step \(step)") }
                model[scope] = bus
            case 5:
                let bus = AppEventBus()
                do {
                    try container.register(bus, for: scope)
                    #expect(model[scope] == nil, "step \(step)")
                    model[scope] = bus
                } catch {
                    #expect(error == .alreadyRegistered(scope: "\(scope)"), "step \(step)")
                    #expect(model[scope] != nil, "step \(step)")
                }
            case 6:
                #expect(container.existingBus(for: scope) === model[scope], "step \(step)")
            default:
                #expect(container.release(scope) == (model.removeValue(forKey: scope) != nil), "step \(step)")
            }
        }
        #expect(Set(container.scopes) == Set(model.keys))
        for (scope, bus) in model { #expect(container.existingBus(for: scope) === bus) }
    }

    // MARK: 6. One bus never serves two scopes

    /// A bus that serves one scope is refused for another, naming the scope it serves: otherwise a
    /// publish in one scope reached the other's subscribers, and releasing one ended the other's
    /// subscriptions.
    @Test func aBusThatServesOneScopeIsRefusedForAnother() throws {
        let container = AppEventBusContainer<String>()
        let checkout = container.bus(for: "checkout")
        #expect(throws: AppEventBusContainerError.alreadyRegistered(scope: "checkout")) {
            try container.register(checkout, for: "profile")
        }
        let mine = AppEventBus(name: "mine")
        try container.register(mine, for: "settings")
        #expect(throws: AppEventBusContainerError.alreadyRegistered(scope: "settings")) {
            try container.register(mine, for: "profile")
        }
        #expect(container.existingBus(for: "profile") == nil, "nothing changed")
        #expect(Set(container.scopes) == ["checkout", "settings"])

        let calls = LockedValue(0)
        checkout.on(Ping.self, delivery: .immediate) { _ in calls.withLock { $0 += 1 } }
        container.bus(for: "profile").publish(Ping(number: 1))
        #expect(calls.withLock { $0 } == 0, "a publish in one scope reaches no other")
        container.release("profile")
        #expect(checkout.listenerCount(for: Ping.self) == 1, "releasing one scope ends no other's subscriptions")
    }

    /// The refusal holds across containers: a bus serves one scope in all of them.
    @Test func aBusThatServesAScopeInOneContainerIsRefusedByAnother() throws {
        let screens = AppEventBusContainer<String>()
        let sections = AppEventBusContainer<Int>()
        let bus = screens.bus(for: "home")
        #expect(throws: AppEventBusContainerError.alreadyRegistered(scope: "home")) {
            try sections.register(bus, for: 1)
        }
        #expect(sections.scopes.isEmpty)
        #expect(
            String(describing: AppEventBusContainerError.alreadyRegistered(scope: "home"))
                .contains("a bus is already registered for scope home"))
    }

    /// A bus refused because its scope was taken stays free, and a released bus may serve another
    /// scope, here or elsewhere, as may one whose container went away.
    @Test func aBusThatServesNoScopeMayBeRegistered() throws {
        let container = AppEventBusContainer<String>()
        let first = AppEventBus(name: "first")
        try container.register(first, for: "a")
        let second = AppEventBus(name: "second")
        #expect(throws: AppEventBusContainerError.alreadyRegistered(scope: "a")) {
            try container.register(second, for: "a")
        }
        try container.register(second, for: "b")

        #expect(container.release("a"))
        try container.register(first, for: "c")
        first.on(Ping.self, delivery: .immediate) { _ in }
        #expect(first.listenerCount(for: Ping.self) == 1, "the bus serves its new scope")

        var other: AppEventBusContainer<String>? = AppEventBusContainer()
        let orphan = other!.bus(for: "gone")
        other = nil
        try container.register(orphan, for: "d")
        #expect(container.existingBus(for: "d") === orphan)
    }

    // MARK: 7. A subscription made on a released bus

    /// How code subscribes, in every form the bus offers: each must end at once on a released bus.
    enum Subscription: String, CaseIterable, CustomStringConvertible, Sendable {
        case mainActor, immediate, actor, owner, once, onceImmediate, stream, allEvents

        var description: String { rawValue }

        /// Subscribes on `bus`, counting what the subscription receives with `received`.
        ///
        /// A stream comes with a way to read its first element (`nil` once it has finished).
        func subscribe(
            _ bus: AppEventBus, listener: Listener, received: @escaping @Sendable () -> Void
        ) -> (subscription: EventSubscription?, firstOfStream: (@Sendable () async -> Int?)?) {
            switch self {
            case .mainActor: return (bus.on(Ping.self) { _ in received() }, nil)
            case .immediate: return (bus.on(Ping.self, delivery: .immediate) { _ in received() }, nil)
            case .actor: return (bus.on(Ping.self, delivery: .isolated(to: listener)) { _, _ in received() }, nil)
            case .owner: return (bus.on(Ping.self, owner: listener, delivery: .immediate) { _, _ in received() }, nil)
            case .once: return (bus.once(Ping.self) { _ in received() }, nil)
            case .onceImmediate: return (bus.once(Ping.self, delivery: .immediate) { _ in received() }, nil)
            case .stream:
                let stream = bus.stream(of: Ping.self)
                return (
                    nil,
                    {
                        var events = stream.makeAsyncIterator()
                        return await events.next()?.number
                    }
                )
            case .allEvents:
                let stream = bus.allEvents()
                return (
                    nil,
                    {
                        var events = stream.makeAsyncIterator()
                        return await events.next().map { ($0.event as? Ping)?.number ?? -1 }
                    }
                )
            }
        }
    }

    /// Code that looked a scope's bus up before the scope was released, on another thread say, and
    /// subscribes after: its subscription ends at once (a stream finishes without an event), and
    /// the bus reports it to its diagnostics, instead of listening unseen to a bus no one publishes
    /// to for that scope any more.
    @Test(arguments: Subscription.allCases)
    func aSubscriptionMadeOnAReleasedBusEndsAtOnceAndIsReported(_ kind: Subscription) async {
        let reports = Reports()
        let container = AppEventBusContainer<String>(diagnostics: reports.record)
        let listener = Listener()
        let bus = container.bus(for: "checkout")
        #expect(container.release("checkout"))

        let received = Counter()
        let (subscription, firstOfStream) = kind.subscribe(bus, listener: listener) { received.increment() }
        bus.publish(Ping(number: 1))
        await bus.flush()

        #expect(bus.listenerCount(for: Ping.self) == 0)
        #expect(received.count == 0)
        if let firstOfStream {
            let first = await firstOfStream()
            #expect(first == nil, "the stream finished at once, without the event published after")
        }
        #expect(reports.releasedBusSubscriptions == ["checkout"])
        var subscriptions = SubscriptionSet()
        subscription?.store(in: &subscriptions)
        #expect(subscriptions.isEmpty, "an ended subscription is not stored")
        #expect(container.bus(for: "checkout") !== bus, "the scope's bus is a new one")
        withExtendedLifetime(listener) {}
    }

    /// Registering a released bus again makes it serve its new scope: subscriptions last again.
    @Test func aReleasedBusRegisteredAgainAcceptsSubscriptions() throws {
        let reports = Reports()
        let container = AppEventBusContainer<String>()
        let bus = AppEventBus(name: "mine", diagnostics: reports.record)
        try container.register(bus, for: "a")
        container.release("a")
        bus.on(Ping.self, delivery: .immediate) { _ in }
        #expect(bus.listenerCount(for: Ping.self) == 0)
        try container.register(bus, for: "b")
        bus.on(Ping.self, delivery: .immediate) { _ in }
        #expect(bus.listenerCount(for: Ping.self) == 1)
        #expect(reports.releasedBusSubscriptions == ["mine"])
    }

    /// Runs a closure when it is deinitialized: a handler that captures one runs user code while the
    /// release ends its subscription and lets the handler go.
    final class OnDeinit: Sendable {
        let body: @Sendable () -> Void
        init(_ body: @escaping @Sendable () -> Void) { self.body = body }
        deinit { body() }
    }

    /// A subscription made while the release is ending the bus's subscriptions (here, from the
    /// `deinit` of what an ended handler captured) ends too.
    @Test func aSubscriptionMadeWhileItsScopeIsReleasedEndsToo() {
        let container = AppEventBusContainer<String>()
        let bus = container.bus(for: "checkout")
        let lateCalls = Counter()
        let madeDuringRelease = Counter()
        do {
            let hook = OnDeinit {
                madeDuringRelease.increment()
                bus.on(Ping.self, delivery: .immediate) { _ in lateCalls.increment() }
            }
            bus.on(Ping.self, delivery: .immediate) { [hook] _ in _ = hook }
        }
        #expect(container.release("checkout"))
        #expect(madeDuringRelease.count == 1, "the handler was let go during the release")
        #expect(bus.listenerCount(for: Ping.self) == 0)
        bus.publish(Ping(number: 1))
        #expect(lateCalls.count == 0)
    }

    /// One thread looks a scope's bus up and subscribes while another releases the scope: whatever
    /// the interleaving, no bus but the scope's current one is left with a subscription.
    ///
    /// The two threads start each round together. Bounded and seeded (the subscriptions per lookup, and how long
    /// each thread works before it subscribes or releases).
    @Test func subscriptionsRacingTheReleaseOfTheirScopeNeverOutliveIt() async {
        let container = AppEventBusContainer<String>()
        let seen = LockedValue<[ObjectIdentifier: AppEventBus]>([:])
        let rounds = 2_000
        // A barrier of two: each round starts on both threads at once.
        let subscriberMayGo = DispatchSemaphore(value: 0)
        let releaserMayGo = DispatchSemaphore(value: 0)
        await withTaskGroup(of: Void.self) { group in
            group.addTask {
                await offThePool {
                    var random = SplitMix64(seed: 35)
                    var spins = 0
                    for _ in 0..<rounds {
                        releaserMayGo.signal()
                        subscriberMayGo.wait()
                        let bus = container.bus(for: "screen")
                        // Some work between the lookup and the subscriptions, as code does.
                        for _ in 0..<Int.random(in: 0..<20_000, using: &random) { spins &+= 1 }
                        for _ in 0...Int.random(in: 0..<3, using: &random) {
                            bus.on(Ping.self, delivery: .immediate) { _ in }
                        }
                        seen.withLock { $0[ObjectIdentifier(bus)] = bus }
                    }
                    withExtendedLifetime(spins) {}
                }
            }
            group.addTask {
                await offThePool {
                    var random = SplitMix64(seed: 3_535)
                    var spins = 0
                    for _ in 0..<rounds {
                        subscriberMayGo.signal()
                        releaserMayGo.wait()
                        for _ in 0..<Int.random(in: 0..<20_000, using: &random) { spins &+= 1 }
                        container.release("screen")
                    }
                    withExtendedLifetime(spins) {}
                }
            }
        }
        let current = container.existingBus(for: "screen")
        let stale = seen.withLock { Array($0.values) }.filter { $0 !== current }
        #expect(stale.count > rounds / 4, "the scope was released while it was subscribed to")
        let outliving = stale.filter { $0.listenerCount(for: Ping.self) > 0 }
        #expect(outliving.isEmpty, "\(outliving.count) of \(stale.count) released buses kept subscriptions")
    }
}
