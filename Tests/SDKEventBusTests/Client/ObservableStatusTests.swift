#if canImport(Observation)
    import Observation
    import SDKEventBusTesting
    import Testing

    @testable import SDKEventBus

    /// The observable status model a SwiftUI view binds to, observed the way SwiftUI does, with
    /// `withObservationTracking`.
    @MainActor
    @Suite struct ObservableStatusTests {
        let rig = LifecycleRig()
        let a = Fixtures.config(named: "A")

        /// Starts observing the properties `read` reads, at once; the sequence ends at their first
        /// change, as SwiftUI's view update would be triggered.
        func observing(_ read: @escaping @MainActor () -> Void) -> AsyncStream<Void> {
            let (changes, continuation) = AsyncStream<Void>.makeStream()
            withObservationTracking(read) { continuation.finish() }
            return changes
        }

        @Test func modelBecomesReadyWithTheReadinessSourceWhenTheClientDoes() async throws {
            guard #available(iOS 17, macOS 14, tvOS 17, watchOS 10, *) else { return }
            let (client, _) = rig.client(rig.service([.delayed(1, .config(a))]))
            let model = client.observableStatus
            #expect(!model.status.isReady)
            let changed = observing { _ = model.status.isReady }
            try await rig.clock.waitForSleepers(1)
            rig.clock.advance(by: 1)
            for await _ in changed {}
            await MainActor.run {}  // the update that notified has now been applied
            #expect(model.status.isReady)
            #expect(model.status.readiness?.source == .live)
            #expect(model.status.source == .live)
            #expect(model.status.lastUpdated != nil)
            await client.shutdown()
        }

        @Test func modelReportsTheLastErrorAndClearsItOnRecovery() async throws {
            guard #available(iOS 17, macOS 14, tvOS 17, watchOS 10, *) else { return }
            let failure = MockConfigFetchService.SimulatedError("offline")
            let (client, _) = rig.client(rig.service([.delayed(1, .failure(failure)), .config(a)]))
            let model = client.observableStatus
            let failed = observing { _ = model.status.consecutiveFailures }
            try await rig.clock.waitForSleepers(1)
            rig.clock.advance(by: 1)
            for await _ in failed {}
            await MainActor.run {}
            #expect(model.status.consecutiveFailures == 1)
            #expect(model.status.lastFetchError as? MockConfigFetchService.SimulatedError == failure)
            let recovered = observing { _ = model.status.lastFetchError }
            try await rig.clock.advanceToNextDeadline()
            for await _ in recovered {}
            await MainActor.run {}
            #expect(model.status.lastFetchError == nil)
            #expect(model.status.isReady)
            await client.shutdown()
        }

        @Test func modelShowsShutdown() async throws {
            guard #available(iOS 17, macOS 14, tvOS 17, watchOS 10, *) else { return }
            let (client, _) = rig.client(rig.service([.config(a)]))
            try await client.ready()
            let model = client.observableStatus
            let changed = observing { _ = model.status.isShutDown }
            await client.shutdown()
            for await _ in changed {}
            await MainActor.run {}
            #expect(model.status.isShutDown)
            #expect(!model.status.isReady)
        }
    }
#endif
