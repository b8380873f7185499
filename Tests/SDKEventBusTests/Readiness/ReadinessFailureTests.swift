import Foundation
import SDKEventBusTesting
import Testing

@testable import SDKEventBus
@_spi(Testing) @testable import SDKEventBusConfig
@testable import SDKEventBusCore
@testable import SDKEventBusWire

/// Ending readiness on purpose with the SDK's own error: terminal for every current and later
/// waiter, and decided once against racing configurations and shutdown.
@Suite struct ReadinessFailureTests {
    let rig = LifecycleRig()
    let a = Fixtures.config(named: "A")

    @Test func errorThatEndsReadinessFailsEveryCurrentAndLaterWaiter() async throws {
        let service = rig.service([.delayed(1, .failure(InvalidSDKKey()))])
        let (client, events) = rig.client(service)
        let waiters = (0..<10).map { _ in Task { try await client.ready() } }
        try await client.waitForReadyWaiters(10)
        try await rig.clock.waitForSleepers(1)  // the fetch waits its scripted second
        rig.clock.advance(by: 1)
        for waiter in waiters {
            await #expect(throws: InvalidSDKKey()) { try await waiter.value }
        }
        await #expect(throws: InvalidSDKKey()) { try await client.ready() }
        try await rig.steps.wait("the lifecycle stopped") { $0.isStopped }
        #expect(service.fetchCount == 1, "no fetch after readiness failed for good")
        #expect(events.count == 0, "nothing was announced")
        await client.shutdown()
    }

    @Test func retryableErrorIsInTheStatusAndWaitersKeepWaiting() async throws {
        let timeout = MockConfigFetchService.SimulatedError("timeout")
        let service = rig.service([.failure(timeout), .config(a)])
        let (client, _) = rig.client(service)
        let waiter = Task { try await client.ready() }
        try await client.waitForReadyWaiters(1)
        try await rig.clock.waitForSleepers(1)  // the lifecycle waits out its backoff
        #expect(client.status.lastFetchError as? MockConfigFetchService.SimulatedError == timeout)
        #expect(client.readinessWaiters == ReadinessWaiters(count: 1, isDecided: false), "the waiter keeps waiting")
        try await rig.clock.advanceToNextDeadline()
        #expect(try await waiter.value.source == .live)
        await client.shutdown()
    }

    @Test func failingRacingTheFirstConfigDecidesOnceForEveryWaiter() async throws {
        for round in 0..<200 {
            let (bus, emitter) = EventBus.makeBus()
            let ready = EventRecorder(bus, delivery: .immediate)
            let store = ConfigStore(emitter: emitter)
            let waiters = (0..<20).map { _ in Task { try await store.waitForReady() } }
            try await store.waitForReadyWaiters(20)
            let config = a
            async let applied = store.setConfig(config)
            async let failed = Task.detached { store.failReadiness(with: InvalidSDKKey()) }.value
            let (change, didFail) = await (applied, failed)
            #expect((change == .first) != didFail, "exactly one of them decided (round \(round))")
            var outcomes: Set<String> = []
            for waiter in waiters {
                do {
                    outcomes.insert("ready \(try await waiter.value.source)")
                } catch {
                    outcomes.insert("\(error)")
                }
            }
            #expect(outcomes.count == 1, "every waiter got the same outcome (round \(round)): \(outcomes)")
            #expect(store.isReady == !didFail)
            #expect(ready.events == (didFail ? [] : [.ready]), "ready was announced only if it won")
            #expect(store.config == (didFail ? nil : config), "a config that lost to the failure is not in effect")
        }
    }

    @Test func failingRacingShutdownResumesEveryWaiterExactlyOnce() async throws {
        for round in 0..<200 {
            let store = ConfigStore(emitter: EventBus.makeBus().emitter)
            let waiters = (0..<20).map { _ in Task { try await store.waitForReady() } }
            try await store.waitForReadyWaiters(20)
            async let failed = Task.detached { store.failReadiness(with: InvalidSDKKey()) }.value
            async let stopped: Void = Task.detached { store.shutdown() }.value
            _ = await (failed, stopped)
            for waiter in waiters {
                do {
                    _ = try await waiter.value
                    Issue.record("a waiter became ready (round \(round))")
                } catch let error as ReadinessError {
                    #expect(error == .shutDown)
                } catch {
                    #expect(error as? InvalidSDKKey != nil)
                }
            }
            await #expect(throws: ReadinessError.shutDown, "shutdown is the last word") {
                try await store.waitForReady()
            }
        }
    }

    @Test func failingAfterReadinessChangesNothing() async throws {
        let store = ConfigStore(emitter: EventBus.makeBus().emitter)
        await store.setConfig(a)
        #expect(!store.failReadiness(with: InvalidSDKKey()))
        #expect(try await store.waitForReady().source == .live)
    }
}
