// A binary SDK built against one release of the package, run against a later one.
//
// Scripts/check-binary-compatibility.sh compiles this module with library evolution against the
// .swiftinterface files of a release (1.0.0) and links it against that release's shared libraries;
// then it runs it, unchanged, against today's. Each check is a promise 1.x keeps to such a binary:
// the @inlinable bodies compiled into it (Docs/ABI.md) still reach the engine correctly, the
// resilient types and protocols still line up, and the behaviour it relied on still holds.
//
// Only the 1.0.0 API may be used here, and only the shipped products (not the testing library,
// which no binary SDK ships).

import Dispatch
import Foundation
import SDKEventBus
import SDKEventBusAppEvents
import SDKEventBusConfig
import SDKEventBusCore
import SDKEventBusWire

/// The checks a binary SDK built against a release makes of the package it runs with.
public enum ReleaseChecks {
    /// Runs every check, on the main actor so that main-actor delivery runs on a live main executor.
    ///
    /// - Parameter fixtures: The release's test resources: `project-config.json` and
    ///   `wire-vectors.jsonl`, the configuration body and the committed wire vectors.
    /// - Returns: How many checks ran, and a line for each that failed.
    @MainActor
    public static func run(fixtures: URL) async -> (checked: Int, failures: [String]) {
        let findings = Findings()
        let sections: [(String, @MainActor (Findings) async -> Void)] = [
            ("built-in catalog", builtInCatalog),
            ("the frozen SystemEvent", frozenSystemEvent),
            ("a catalog of the client's own", ownCatalog),
            ("delivery contexts and handles", contextsAndHandles),
            ("off while a pass calls the listener", offDuringPass),
            ("event sequences and shutdown", sequencesAndShutdown),
            ("wire form", { await wireForm($0, fixtures: fixtures) }),
            ("store and readiness", storeAndReadiness),
            ("lifecycle on the client's clock", { await lifecycle($0, fixtures: fixtures) }),
            ("app buses", appBuses),
        ]
        for (name, section) in sections {
            let before = findings.result
            await section(findings)
            let after = findings.result
            let failed = after.failures.count - before.failures.count
            print("  \(name): \(after.checked - before.checked) checks\(failed > 0 ? ", \(failed) FAILED" : "")")
        }
        return findings.result
    }

    // MARK: - The inlined verbs on the built-in catalog

    /// `fire` of a payload value and of a payload struct, `on` on the main actor and on the firing
    /// thread, typed `on`, `off`: the bodies compiled into the client, and the entries they call.
    @MainActor
    static func builtInCatalog(_ findings: Findings) async {
        let (bus, emitter) = EventBus.makeBus()
        let immediate = Recorder<String>()
        let onMain = Recorder<String>()
        let typedImmediate = Recorder<String>()
        let typedOnMain = Recorder<String>()
        let offMainThread = Recorder<String>()

        let tokens = [
            bus.on(.bucketing, delivery: .immediate) { payload in
                if case .bucketing(let bucketing) = payload { immediate.append(bucketing.visitorId) }
            },
            bus.on(.bucketing) { payload in
                if !onMainQueue() { offMainThread.append("on(.bucketing)") }
                if case .bucketing(let bucketing) = payload { onMain.append(bucketing.visitorId) }
            },
            bus.on(BucketingPayload.self, delivery: .immediate) { payload in typedImmediate.append(payload.visitorId) },
            bus.on(BucketingPayload.self) { payload in
                if !onMainQueue() { offMainThread.append("on(BucketingPayload.self)") }
                typedOnMain.append(payload.visitorId)
            },
        ]
        findings.check(bus.listenerCount(for: .bucketing) == 4, "listenerCount counts the 4 listeners")

        for index in 0..<50 {
            emitter.fire(.bucketing(BucketingPayload(experienceId: "e", variationId: "v", visitorId: "value-\(index)")))
        }
        for index in 0..<50 {
            emitter.fire(BucketingPayload(experienceId: "e", variationId: "v", visitorId: "struct-\(index)"))
        }
        // Another event is not delivered to these listeners.
        emitter.fire(.conversion(ConversionPayload(goalId: "g", visitorId: "other")))
        await bus.flush()

        let expected = (0..<50).map { "value-\($0)" } + (0..<50).map { "struct-\($0)" }
        findings.check(immediate.values == expected, "immediate on: 100 fires in order, got \(immediate.values.count)")
        findings.check(onMain.values == expected, "main-actor on: 100 fires in order, got \(onMain.values.count)")
        findings.check(
            typedImmediate.values == expected, "typed immediate on: 100 fires, got \(typedImmediate.values.count)")
        findings.check(
            typedOnMain.values == expected, "typed main-actor on: 100 fires, got \(typedOnMain.values.count)")
        findings.check(
            offMainThread.values.isEmpty,
            "main-actor callbacks ran on the main queue, not \(offMainThread.values.count)")

        // An immediate listener runs on the firing thread, before `fire` returns.
        let threads = Recorder<ObjectIdentifier>()
        let probe = bus.on(.conversion, delivery: .immediate) { _ in threads.append(ObjectIdentifier(Thread.current)) }
        let ranOnFiringThread = Recorder<Bool>()
        let fired = Signal()
        let thread = Thread {
            emitter.fire(.conversion(ConversionPayload(goalId: "g", visitorId: "thread")))
            ranOnFiringThread.append(threads.values == [ObjectIdentifier(Thread.current)])
            fired.give()
        }
        thread.start()
        await fired.wait()
        findings.check(
            ranOnFiringThread.values == [true], "an immediate listener ran on the firing thread, before fire returned")
        probe.cancel()

        // off: final on return, for both contexts; cancel() for the typed ones.
        for token in tokens.prefix(2) { await bus.off(token) }
        tokens[2].cancel()
        await bus.off(tokens[3])
        findings.check(bus.listenerCount(for: .bucketing) == 0, "off and cancel ended every subscription")
        emitter.fire(.bucketing(BucketingPayload(experienceId: "e", variationId: "v", visitorId: "after-off")))
        emitter.fire(BucketingPayload(experienceId: "e", variationId: "v", visitorId: "after-off"))
        await bus.flush()
        let all = immediate.values + onMain.values + typedImmediate.values + typedOnMain.values
        findings.check(!all.contains("after-off"), "nothing is delivered after off")

        // The sticky ready event replays to a late listener, once.
        emitter.fire(.ready(ReadyPayload(source: .live, configAgeSeconds: 0)))
        let late = Recorder<Readiness.Source?>()
        let lateToken = bus.on(.ready, delivery: .immediate) { payload in
            if case .ready(let ready) = payload { late.append(ready.source) }
        }
        await bus.flush()
        findings.check(late.values == [.live], "the sticky ready replayed once to a late listener, got \(late.values)")
        lateToken.cancel()
    }

    /// `SystemEvent` is `@frozen`: the client switches over it with 1.0.0's cases compiled in, and
    /// reads values the package made.
    @MainActor
    static func frozenSystemEvent(_ findings: Findings) async {
        let rawValues = [
            "ready", "config.updated", "api.queue.released", "bucketing", "conversion", "segments",
            "location.activated", "location.deactivated", "audiences", "datastore.queue.released",
        ]
        findings.check(SystemEvent.allCases.map(\.rawValue) == rawValues, "SystemEvent's cases and raw values")
        for event in SystemEvent.allCases {
            findings.check(SystemEvent(rawValue: event.rawValue) == event, "SystemEvent(rawValue: \(event.rawValue))")
            findings.check(compiledName(of: event) == event.rawValue, "the client's switch reads \(event.rawValue)")
        }
        let samples: [(EventPayloadValue, SystemEvent)] = [
            (.apiQueueReleased(ApiQueueReleasedPayload(eventCount: 1)), .apiQueueReleased),
            (.bucketing(BucketingPayload(experienceId: "e", variationId: "v", visitorId: "u")), .bucketing),
            (.conversion(ConversionPayload(goalId: "g", visitorId: "u")), .conversion),
            (.locationDeactivated(LocationDeactivatedPayload()), .locationDeactivated),
            (.audiences(AudiencesPayload(audienceIds: ["a"], visitorId: "u")), .audiences),
            (.dataStoreQueueReleased(DataStoreQueueReleasedPayload()), .dataStoreQueueReleased),
        ]
        for (payload, event) in samples {
            findings.check(payload.event == event, "the package says \(payload) is of \(event)")
            findings.check(compiledName(of: payload.event) == event.rawValue, "the client reads the event of \(event)")
        }
        findings.check(
            SystemEvent.ready.replayRule == .sticky && SystemEvent.configUpdated.replayRule == .latestOnRequest
                && SystemEvent.bucketing.replayRule == .none,
            "SystemEvent's replay rules")
    }

    /// The name of `event`, from a `switch` compiled into the client: no `default`, as `@frozen` allows.
    static func compiledName(of event: SystemEvent) -> String {
        switch event {
        case .ready: "ready"
        case .configUpdated: "config.updated"
        case .apiQueueReleased: "api.queue.released"
        case .bucketing: "bucketing"
        case .conversion: "conversion"
        case .segments: "segments"
        case .locationActivated: "location.activated"
        case .locationDeactivated: "location.deactivated"
        case .audiences: "audiences"
        case .dataStoreQueueReleased: "datastore.queue.released"
        }
    }

    // MARK: - A catalog of the client's own

    /// Generic code across the boundary: the bus, the emitter and the verbs specialized for a catalog
    /// declared here, reached through a facade of the client's own and through generic functions.
    @MainActor
    static func ownCatalog(_ findings: Findings) async {
        let sdk = CartSDK()
        let skus = Recorder<String>()
        let mainSkus = Recorder<String>()
        let viaFacade = sdk.on(.itemAdded, delivery: .immediate) { payload in
            if case .itemAdded(let item) = payload { skus.append(item.sku) }
        }
        let viaGeneric = subscribe(sdk, to: .itemAdded, recording: mainSkus)
        let once = Recorder<Int>()
        sdk.once(.itemAdded, delivery: .immediate) { payload in
            if case .itemAdded(let item) = payload { once.append(item.quantity) }
        }
        sdk.add("A-1", quantity: 3)
        sdk.firing.fire(.itemAdded(ItemAddedPayload(sku: "B-2", quantity: 1)))
        sdk.add("C-3")
        await sdk.bus.flush()
        findings.check(skus.values == ["A-1", "B-2", "C-3"], "a facade's on: \(skus.values)")
        findings.check(
            mainSkus.values == ["A-1", "B-2", "C-3"], "generic on over CatalogSubscribing: \(mainSkus.values)")
        findings.check(once.values == [3], "once delivered the first fire only: \(once.values)")
        findings.check(sdk.listenerCount(for: .itemAdded) == 2, "once ended after its delivery")
        await sdk.off(viaFacade)
        await unsubscribe(sdk, viaGeneric)
        findings.check(sdk.listenerCount(for: .itemAdded) == 0, "off through the facade and generically")

        // Replay rules of the client's catalog.
        sdk.firing.fire(CheckoutPayload(total: 42))
        sdk.firing.fire(CartStatePayload(items: 1))
        sdk.firing.fire(CartStatePayload(items: 2))
        let sticky = Recorder<Int>()
        let latest = Recorder<Int>()
        let notAsked = Recorder<Int>()
        let replayTokens = [
            sdk.on(CheckoutPayload.self, delivery: .immediate) { sticky.append($0.total) },
            sdk.on(CartStatePayload.self, delivery: .immediate, replayLatest: true) { latest.append($0.items) },
            sdk.on(CartStatePayload.self, delivery: .immediate) { notAsked.append($0.items) },
        ]
        await sdk.bus.flush()
        findings.check(sticky.values == [42], "a sticky event replayed to a late listener: \(sticky.values)")
        findings.check(latest.values == [2], "latestOnRequest replayed the latest on request: \(latest.values)")
        findings.check(notAsked.values.isEmpty, "latestOnRequest replayed nothing unasked: \(notAsked.values)")
        sdk.firing.clearReplay(of: .checkout)
        let afterClear = Recorder<Int>()
        let clearedToken = sdk.on(CheckoutPayload.self, delivery: .immediate) { afterClear.append($0.total) }
        await sdk.bus.flush()
        findings.check(afterClear.values.isEmpty, "clearReplay(of:) retracted the sticky payload")
        for token in replayTokens + [clearedToken] { token.cancel() }
    }

    /// Subscribes on the main actor through any bus of `Catalog`: generic code compiled into the client.
    static func subscribe<Subscribing: CatalogSubscribing>(
        _ subscribing: Subscribing, to event: Subscribing.Catalog, recording skus: Recorder<String>
    ) -> EventSubscription where Subscribing.Catalog == CartEvent {
        subscribing.on(event) { payload in
            if case .itemAdded(let item) = payload { skus.append(item.sku) }
        }
    }

    /// Ends `subscription` through any bus: the inlined `off`, unspecialized.
    static func unsubscribe(_ subscribing: some CatalogSubscribing, _ subscription: EventSubscription) async {
        await subscribing.off(subscription)
    }

    /// An actor's context, owner-bound subscriptions, `cancelAll(ownedBy:)` and `SubscriptionSet`.
    @MainActor
    static func contextsAndHandles(_ findings: Findings) async {
        let sdk = CartSDK()
        let tally = Tally()
        let onActor = sdk.on(.itemAdded, delivery: .isolated(to: tally)) { tally, payload in
            if case .itemAdded(let item) = payload { tally.add(item.sku) }
        }
        let owner = Owner()
        let owned = Recorder<String>()
        sdk.on(.itemAdded, owner: owner, delivery: .immediate) { _, payload in
            if case .itemAdded(let item) = payload { owned.append(item.sku) }
        }
        var subscriptions = SubscriptionSet()
        let inSet = Recorder<String>()
        sdk.on(ItemAddedPayload.self, delivery: .immediate) { inSet.append($0.sku) }.store(in: &subscriptions)
        sdk.on(CheckoutPayload.self, delivery: .immediate) { inSet.append("total \($0.total)") }
            .store(in: &subscriptions)
        findings.check(subscriptions.count == 2, "a SubscriptionSet holds 2 subscriptions")

        sdk.add("A-1")
        sdk.firing.fire(CheckoutPayload(total: 7))
        await sdk.bus.flush()
        findings.check(await tally.skus == ["A-1"], "delivery isolated to an actor")
        findings.check(owned.values == ["A-1"], "an owner-bound subscription")
        findings.check(inSet.values == ["A-1", "total 7"], "subscriptions stored in a SubscriptionSet")

        sdk.cancelAll(ownedBy: owner)
        subscriptions.removeAll()
        await sdk.off(onActor)
        sdk.add("B-2")
        await sdk.bus.flush()
        findings.check(await tally.skus == ["A-1"], "off ended the actor's subscription")
        findings.check(owned.values == ["A-1"], "cancelAll(ownedBy:) ended the owner's subscriptions")
        findings.check(inSet.values == ["A-1", "total 7"], "removeAll() ended the set's subscriptions")
        findings.check(sdk.listenerCount(for: .itemAdded) == 0, "no listener is left")
        withExtendedLifetime(owner) {}
    }

    /// The inlined `off` of a listener whose callback a pass is running on another thread: it ends the
    /// subscription with the first entry, waits with the second, and returns once the callback has.
    @MainActor
    static func offDuringPass(_ findings: Findings) async {
        let (bus, emitter) = CatalogBus<CartEvent>.makeBus()
        let inCallback = Signal()
        let release = DispatchSemaphore(value: 0)
        let steps = Recorder<String>()
        let token = bus.on(.itemAdded, delivery: .immediate) { payload in
            guard case .itemAdded(let item) = payload else { return }
            steps.append("called for \(item.sku)")
            inCallback.give()
            if item.sku == "A-1" { release.wait() }
            steps.append("returned")
        }
        let fired = Signal()
        let thread = Thread {
            emitter.fire(ItemAddedPayload(sku: "A-1", quantity: 1))
            fired.give()
        }
        thread.start()
        await inCallback.wait()
        // The firing thread is inside the callback. This job runs once the main actor is free: when
        // `off` below waits for the pass (or, were `off` not to wait, after it returned).
        Task { @MainActor in release.signal() }
        await bus.off(token)
        steps.append("off returned")
        await fired.wait()
        emitter.fire(ItemAddedPayload(sku: "B-2", quantity: 1))
        await bus.flush()
        findings.check(
            steps.values == ["called for A-1", "returned", "off returned"],
            "off returned once the running callback had, and nothing after: \(steps.values)")
    }

    /// `stream(…)` across the boundary, and the emitter's `shutdown()`, which finishes it.
    @MainActor
    static func sequencesAndShutdown(_ findings: Findings) async {
        let sdk = CartSDK()
        let stream = sdk.stream(.itemAdded)
        let typed = sdk.stream(of: CheckoutPayload.self)
        sdk.add("A-1")
        sdk.firing.fire(CheckoutPayload(total: 5))
        sdk.add("B-2")
        var received: [String] = []
        for await payload in stream.prefix(2) {
            if case .itemAdded(let item) = payload { received.append(item.sku) }
        }
        findings.check(received == ["A-1", "B-2"], "stream(_:) delivered the fires in order: \(received)")
        var totals: [Int] = []
        for await payload in typed.prefix(1) { totals.append(payload.total) }
        findings.check(totals == [5], "stream(of:) delivered the payload struct: \(totals)")

        let finishing = sdk.stream(.itemAdded)
        sdk.firing.shutdown()
        sdk.add("after-shutdown")
        var afterShutdown = 0
        for await _ in finishing { afterShutdown += 1 }
        findings.check(afterShutdown == 0, "shutdown() finished the sequence and later fires do nothing")
        findings.check(sdk.listenerCount(for: .itemAdded) == 0, "shutdown() ended every subscription")
    }

    // MARK: - Wire form

    /// The committed wire vectors of the release decode and re-encode to the same bytes; a catalog of
    /// the client's own gets the canonical form; malformed bytes give typed, located errors.
    @MainActor
    static func wireForm(_ findings: Findings, fixtures: URL) async {
        do {
            let vectors = try String(contentsOf: fixtures.appendingPathComponent("wire-vectors.jsonl"), encoding: .utf8)
                .split(separator: "\n").map { Data($0.utf8) }
            findings.check(vectors.count >= 10, "the release's wire vectors were read: \(vectors.count)")
            for vector in vectors {
                do {
                    let payload = try EventPayloadValue(wireJSON: vector)
                    let bytes = try payload.wireJSON()
                    findings.check(
                        bytes == vector, "wire vector round-trips: \(String(decoding: vector, as: UTF8.self))")
                } catch {
                    findings.fail("wire vector \(String(decoding: vector, as: UTF8.self)): \(error)")
                }
            }
        } catch {
            findings.fail("reading the wire vectors: \(error)")
        }

        do {
            let payload = CartPayload.itemAdded(ItemAddedPayload(sku: "A-1", quantity: 2))
            let bytes = try payload.wireJSON()
            let canonical = #"{"data":{"quantity":2,"sku":"A-1"},"event":"item.added"}"#
            findings.check(
                String(decoding: bytes, as: UTF8.self) == canonical, "the client's catalog's canonical bytes")
            findings.check(try CartPayload(wireJSON: bytes) == payload, "the client's catalog decodes its bytes")
            let viaCodable = try JSONDecoder().decode(CartPayload.self, from: bytes)
            findings.check(viaCodable == payload, "Codable decodes the wire form")
        } catch {
            findings.fail("the client's catalog's wire form: \(error)")
        }
        do {
            _ = try CartPayload(wireJSON: Data(#"{"data":{},"event":"item.removed"}"#.utf8))
            findings.fail("an unknown event decoded")
        } catch {
            findings.check(error.code == .unknownEvent, "an unknown event is .unknownEvent, got \(error.code)")
        }
        do {
            _ = try CartPayload(wireJSON: Data(#"{"data":{"sku":"A-1","quantity":"2"},"event":"item.added"}"#.utf8))
            findings.fail("a quantity of the wrong type decoded")
        } catch {
            findings.check(
                error.code == .wrongType && error.path == "data.quantity",
                "a wrong type is located: \(error.code) at \(error.path)")
        }
        do {
            _ = try ProjectConfig(jsonData: Data("{\n  \"account_id\": ,\n}".utf8))
            findings.fail("malformed JSON decoded")
        } catch {
            findings.check(error.code == .invalidSyntax && error.line == 2, "malformed JSON: \(error)")
        }
    }

    // MARK: - Configuration

    /// The store of a catalog of the client's own: readiness, changes, their events, and the waits.
    @MainActor
    static func storeAndReadiness(_ findings: Findings) async {
        let (bus, emitter) = CatalogBus<FlagEvent>.makeBus()
        let store = CatalogConfigStore(emitter: emitter)
        let clock = ManualClock(now: 1_000)
        let announced = Recorder<FlagPayload>()
        let token = bus.on(.flagsChanged) { announced.append($0) }
        findings.check(!store.isReady && store.config == nil && store.readiness == nil, "a new store is not ready")

        let timed = Task { try await store.waitForReady(timeout: 5, clock: clock) }
        clock.advance(to: await clock.sleeper { $0 == 1_005 })
        do {
            _ = try await timed.value
            findings.fail("waitForReady(timeout:clock:) returned before the store was ready")
        } catch let error as ReadinessError {
            findings.check(error == .timedOut(after: 5), "waitForReady timed out after 5 s: \(error)")
        } catch {
            findings.fail("waitForReady threw \(error)")
        }

        let waiting = Task { try await store.waitForReady() }
        let first = await store.setConfig(FlagSet(flags: ["a": true]), from: .live)
        findings.check(first == .first, "the first configuration: \(first)")
        do {
            let readiness = try await waiting.value
            findings.check(readiness.source == .live, "a waiter became ready from the live configuration")
        } catch {
            findings.fail("waitForReady: \(error)")
        }
        findings.check(store.isReady && store.readiness?.source == .live, "the store reads ready")
        findings.check(store.config == FlagSet(flags: ["a": true]), "the store reads its configuration")
        let ready = Recorder<FlagPayload>()
        let readyToken = bus.on(.initialized, delivery: .immediate) { ready.append($0) }

        let same = await store.setConfig(FlagSet(flags: ["a": true]))
        let updated = await store.setConfig(FlagSet(flags: ["a": false, "b": true]))
        await bus.flush()
        findings.check(same == .unchanged && updated == .updated, "changes: \(same), \(updated)")
        findings.check(
            ready.values == [.initialized(source: "live", flagCount: 1)], "the sticky ready: \(ready.values)")
        findings.check(announced.values == [.flagsChanged(["a", "b"])], "one change announced: \(announced.values)")
        findings.check(!store.failReadiness(with: CancellationError()), "failReadiness after ready does nothing")
        findings.check(store.isReady, "the store stays ready")
        store.shutdown()
        readyToken.cancel()
        token.cancel()
    }

    /// The built-in client on the client's own clock and fetch service: a timed `ready()`, readiness from
    /// a fetch, a scheduled refresh that announces a change, `refreshNow()`, diagnostics, `shutdown`.
    @MainActor
    static func lifecycle(_ findings: Findings, fixtures: URL) async {
        let body: Data
        let config: ProjectConfig
        do {
            body = try Data(contentsOf: fixtures.appendingPathComponent("project-config.json"))
            config = try await ProjectConfig.decoded(from: body)
        } catch {
            findings.fail("the release's configuration fixture: \(error)")
            return
        }
        var changed = config
        changed.project.name = "Renamed"
        let clock = ManualClock(now: 10_000)
        let service = GatedFetchService()
        let steps = Recorder<String>()
        var settings = SDKConfiguration(refreshInterval: 60)
        settings.clock = clock
        settings.diagnostics = { diagnostic in
            switch diagnostic {
            case .fetchStarted: steps.append("fetchStarted")
            case .configApplied(let change): steps.append("configApplied(\(change))")
            default: break
            }
        }
        let client = SDKClient(configuration: settings, fetchService: service)
        let updates = Recorder<String>()
        let renamed = Signal()
        let updatesToken = client.on(.configUpdated) { payload in
            guard case .configUpdated(let update) = payload else { return }
            updates.append(update.snapshot?.project.name ?? "nil")
            if update.snapshot?.project.name == "Renamed" { renamed.give() }
        }
        findings.check(!client.status.isReady, "the client is not ready before its first fetch")

        let timed = Task { try await client.ready(timeout: 2, clock: clock) }
        clock.advance(to: await clock.sleeper { $0 == 10_002 })
        do {
            _ = try await timed.value
            findings.fail("ready(timeout: 2, clock:) returned before the first fetch")
        } catch let error as ReadinessError {
            findings.check(error == .timedOut(after: 2), "ready(timeout: 2, clock:) timed out: \(error)")
        } catch {
            findings.fail("ready(timeout:clock:) threw \(error)")
        }

        await service.serve(.success(config))
        do {
            let readiness = try await client.ready()
            findings.check(readiness.source == .live, "ready from a live fetch: \(readiness)")
        } catch {
            findings.fail("ready(): \(error)")
        }
        findings.check(client.config == config, "the client reads the fetched configuration")
        findings.check(client.status.isReady && client.status.source == .live, "the status: \(client.status)")

        // The scheduled refresh sleeps on the client's clock; the time advances to it.
        let readyAt = clock.now
        let refreshAt = await clock.sleeper { $0 >= readyAt + 30 }
        await service.prepare(.success(changed))
        clock.advance(to: refreshAt)
        await renamed.wait()
        findings.check(updates.values == ["Renamed"], "the scheduled refresh announced the change: \(updates.values)")

        await service.prepare(.success(changed))
        do {
            let change = try await client.refreshNow()
            findings.check(change == .unchanged, "refreshNow() with the same configuration: \(change)")
        } catch {
            findings.fail("refreshNow(): \(error)")
        }
        findings.check(
            steps.values.filter { $0 == "fetchStarted" }.count == 3
                && steps.values.contains("configApplied(\(ConfigChange.updated))"),
            "diagnostics reported the fetches and the change: \(steps.values)")

        await client.bus.off(updatesToken)
        let report = await client.shutdown(timeout: 5)
        findings.check(report.isComplete, "shutdown abandoned nothing: \(report)")
        findings.check(client.status.isShutDown, "the status reads shut down")

        // A client of the client's own catalog, with a fetch function.
        let (flags, flagEmitter) = CatalogClient<FlagEvent>.makeClient(
            configuration: LifecycleConfiguration(refreshInterval: nil), fetch: { FlagSet(flags: ["x": true]) })
        do {
            let readiness = try await flags.ready()
            findings.check(readiness.source == .live && flags.config?.flags == ["x": true], "a fetch function's client")
        } catch {
            findings.fail("a fetch function's client: \(error)")
        }
        let initialized = Recorder<FlagPayload>()
        let token = flags.on(.initialized) { initialized.append($0) }
        flagEmitter.fire(.flagsChanged(["x"]))
        await flags.bus.flush()
        findings.check(initialized.values == [.initialized(source: "live", flagCount: 1)], "its ready replayed")
        token.cancel()
        _ = await flags.shutdown()
    }

    // MARK: - App buses

    /// Events published and subscribed by type.
    @MainActor
    static func appBuses(_ findings: Findings) async {
        let bus = AppEventBus(name: "release-client")
        let immediate = Recorder<String>()
        let onMain = Recorder<String>()
        let token = bus.on(SignedIn.self, delivery: .immediate) { immediate.append($0.user) }
        bus.on(SignedIn.self) { onMain.append($0.user) }
        bus.publish(SignedIn(user: "ada"))
        await bus.publishAndWait(SignedIn(user: "grace"))
        await bus.flush()
        findings.check(immediate.values == ["ada", "grace"], "an app bus's immediate listener: \(immediate.values)")
        findings.check(onMain.values == ["ada", "grace"], "an app bus's main-actor listener: \(onMain.values)")
        await bus.off(token)
        findings.check(bus.listenerCount(for: SignedIn.self) == 1, "off on an app bus")
        bus.cancelAll()
        findings.check(bus.listenerCount(for: SignedIn.self) == 0, "cancelAll() on an app bus")
    }
}

/// The main queue's mark, by which a callback tells it runs on the main actor: on Linux the main
/// actor's jobs run on the main queue, which `dispatchMain()` serves from another thread.
private let mainQueueKey: DispatchSpecificKey<Bool> = {
    let key = DispatchSpecificKey<Bool>()
    DispatchQueue.main.setSpecific(key: key, value: true)
    return key
}()

/// Whether the caller runs on the main queue.
func onMainQueue() -> Bool { DispatchQueue.getSpecific(key: mainQueueKey) == true }

/// An app event of the client's own.
struct SignedIn: AppEvent {
    var user: String
}

/// An actor a subscription delivers on.
actor Tally {
    private(set) var skus: [String] = []

    func add(_ sku: String) { skus.append(sku) }
}

/// An owner of subscriptions.
final class Owner: Sendable {}

/// A fetch service of the client's own: each fetch takes the result the client prepared, or waits for
/// the one it serves.
actor GatedFetchService: ConfigFetching {
    private var prepared: [Result<ProjectConfig, any Error>] = []
    private var waiting: [CheckedContinuation<ProjectConfig, any Error>] = []

    func fetchLiveConfig() async throws -> ProjectConfig {
        if !prepared.isEmpty { return try prepared.removeFirst().get() }
        return try await withCheckedThrowingContinuation { waiting.append($0) }
    }

    /// Answers the fetch in flight, or else the next one, with `result`.
    func serve(_ result: Result<ProjectConfig, any Error>) {
        if waiting.isEmpty { prepared.append(result) } else { waiting.removeFirst().resume(with: result) }
    }

    /// Queues `result` for the next fetch.
    func prepare(_ result: Result<ProjectConfig, any Error>) { prepared.append(result) }
}
