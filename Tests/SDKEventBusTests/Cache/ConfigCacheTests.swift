import Foundation
import SDKEventBusTesting
import Testing

@testable import SDKEventBus
@testable import SDKEventBusConfig
@testable import SDKEventBusCore
@testable import SDKEventBusWire

/// A fresh directory under the temporary directory, removed by `cleanUp()`.
struct TemporaryDirectory {
    let url = FileManager.default.temporaryDirectory.appendingPathComponent("SDKEventBusTests-\(UUID().uuidString)")

    func cleanUp() {
        try? FileManager.default.removeItem(at: url)
    }
}

@Suite struct FileConfigCacheTests {
    @Test func savedConfigurationLoadsBack() throws {
        let directory = TemporaryDirectory()
        defer { directory.cleanUp() }
        let cache = JSONFileConfigCache<ProjectConfig>(directory: directory.url)
        try cache.save(Fixtures.projectConfig, body: Fixtures.projectConfig.encodedForCache())
        #expect(try cache.load() == Fixtures.projectConfig)
    }

    @Test func missingCacheLoadsAsNothing() throws {
        let directory = TemporaryDirectory()
        #expect(try JSONFileConfigCache<ProjectConfig>(directory: directory.url).load() == nil)
    }

    @Test func corruptFileIsRejectedWithTheDecodingError() throws {
        let directory = TemporaryDirectory()
        defer { directory.cleanUp() }
        let cache = JSONFileConfigCache<ProjectConfig>(directory: directory.url)
        try cache.save(Fixtures.projectConfig, body: Fixtures.projectConfig.encodedForCache())
        try Data(Fixtures.projectConfigData.prefix(300)).write(to: cache.fileURL)
        #expect {
            try cache.load()
        } throws: { error in
            (error as? JSONDecodingError)?.code == .invalidSyntax
        }
    }

    @Test func unreadableCacheIsRejectedWithTheFileSystemsErrorNotADecodingError() throws {
        let directory = TemporaryDirectory()
        defer { directory.cleanUp() }
        let cache = JSONFileConfigCache<ProjectConfig>(directory: directory.url)
        // A directory where the file should be: it exists but cannot be read as a file.
        try FileManager.default.createDirectory(at: cache.fileURL, withIntermediateDirectories: true)
        #expect {
            try cache.load()
        } throws: { error in
            !(error is JSONDecodingError)
        }
    }

    @Test func clearDeletesTheFileAndClearingNothingIsNoError() throws {
        let directory = TemporaryDirectory()
        defer { directory.cleanUp() }
        let cache = JSONFileConfigCache<ProjectConfig>(directory: directory.url)
        try cache.clear()
        try cache.save(Fixtures.projectConfig, body: Fixtures.projectConfig.encodedForCache())
        try cache.clear()
        #expect(!FileManager.default.fileExists(atPath: cache.fileURL.path))
        #expect(try cache.load() == nil)
    }

    @Test func unwritableLocationIsATypedError() throws {
        let directory = TemporaryDirectory()
        defer { directory.cleanUp() }
        try FileManager.default.createDirectory(at: directory.url, withIntermediateDirectories: true)
        let blocker = directory.url.appendingPathComponent("file")
        try Data("x".utf8).write(to: blocker)
        let cache = JSONFileConfigCache<ProjectConfig>(directory: blocker)  // a file where the directory should be
        #expect {
            try cache.save(Fixtures.projectConfig, body: Fixtures.projectConfig.encodedForCache())
        } throws: { error in
            !(error is JSONDecodingError)
        }
    }
}

/// The client with a cache and an injected configuration, on a manual clock.
@Suite(.timeLimit(.minutes(2))) @MainActor struct OfflineReadinessTests {
    let a = Fixtures.config(named: "A")
    let b = Fixtures.config(named: "B")
    let harness = ClientHarness()

    func makeClient(
        _ script: [MockConfigFetchService.Outcome],
        cache: (any ConfigCache<ProjectConfig>)? = nil,
        initialConfig: ProjectConfig? = nil
    ) async -> SDKClient {
        let service = MockConfigFetchService(script, afterScript: .hang, clock: harness.clock)
        return harness.client(service, cache: cache, initialConfig: initialConfig).0
    }

    @Test func clientBecomesReadyFromTheCacheWhileOffline() async throws {
        let directory = TemporaryDirectory()
        defer { directory.cleanUp() }
        let cache = JSONFileConfigCache<ProjectConfig>(directory: directory.url)
        try cache.save(a, body: a.encodedForCache())
        let client = await makeClient([.failure(URLError(.notConnectedToInternet))], cache: cache)
        try await client.ready()
        #expect(client.config == a)
        #expect(client.status.source == .cache)
        #expect(client.status.isReady)
        await harness.diagnostics.wait { $0.isFetchFailed }
        #expect(client.status.lastFetchError is URLError, "offline, and reported")
        await client.bus.flush()
        #expect(harness.recorder.events == [.ready])
        await client.shutdown()
    }

    @Test func liveConfigThatDiffersFromTheCacheFiresConfigUpdatedAndIsCached() async throws {
        let directory = TemporaryDirectory()
        defer { directory.cleanUp() }
        let cache = JSONFileConfigCache<ProjectConfig>(directory: directory.url)
        try cache.save(a, body: a.encodedForCache())
        let client = await makeClient([.config(b)], cache: cache)
        await harness.diagnostics.wait { $0.isCacheSaved }
        await client.bus.flush()
        #expect(harness.recorder.events == [.ready, .configUpdated])
        #expect(harness.recorder.readiness?.source == .cache)
        #expect(
            harness.recorder.payloads.last
                == .configUpdated(ConfigUpdatedPayload(snapshot: b, changes: .init(from: a, to: b)))
        )
        #expect(client.status.source == .live)
        #expect(try cache.load() == b, "the new configuration is kept for the next start")
        await client.shutdown()
    }

    @Test func corruptCacheIsIgnoredAndNeverMakesTheClientReady() async throws {
        let directory = TemporaryDirectory()
        defer { directory.cleanUp() }
        let cache = JSONFileConfigCache<ProjectConfig>(directory: directory.url)
        try FileManager.default.createDirectory(at: directory.url, withIntermediateDirectories: true)
        try Data("{\"account_id\": \"1\", \"project\": ".utf8).write(to: cache.fileURL)
        let client = await makeClient([.hang], cache: cache)
        await harness.diagnostics.wait { if case .cacheRejected = $0 { true } else { false } }
        #expect(client.status.isReady == false)
        #expect(client.status.source == nil)
        #expect((client.status.lastFetchError as? JSONDecodingError)?.code == .invalidSyntax)
        await client.bus.flush()
        #expect(harness.recorder.events.isEmpty, "no false ready")
        await client.shutdown()
    }

    @Test func corruptCacheFileIsDeletedAndTheDeletionReported() async throws {
        let directory = TemporaryDirectory()
        defer { directory.cleanUp() }
        let cache = JSONFileConfigCache<ProjectConfig>(directory: directory.url)
        try FileManager.default.createDirectory(at: directory.url, withIntermediateDirectories: true)
        try Data("{\"account_id\": \"1\", \"project\": ".utf8).write(to: cache.fileURL)
        let client = await makeClient([.hang], cache: cache)
        await harness.diagnostics.wait { if case .cacheCleared = $0 { true } else { false } }
        #expect(!FileManager.default.fileExists(atPath: cache.fileURL.path), "the next start does not read it again")
        let steps = harness.diagnostics.steps.map(\.description)
        #expect(steps.prefix(2).map { $0.prefix(13) } == ["cache ignored", "corrupt cache"], "\(steps)")
        await client.shutdown()
    }

    @Test func unreadableCacheIsLeftInPlace() async throws {
        let directory = TemporaryDirectory()
        defer { directory.cleanUp() }
        let cache = JSONFileConfigCache<ProjectConfig>(directory: directory.url)
        // A directory where the file should be: unreadable, which may pass (a locked device's
        // protected file, say), so it is not deleted.
        try FileManager.default.createDirectory(at: cache.fileURL, withIntermediateDirectories: true)
        let client = await makeClient([.hang], cache: cache)
        await harness.diagnostics.wait { $0.isFetchStarted }
        #expect(harness.diagnostics.steps.contains { if case .cacheRejected = $0 { true } else { false } })
        #expect(!harness.diagnostics.steps.contains { if case .cacheCleared = $0 { true } else { false } })
        #expect(FileManager.default.fileExists(atPath: cache.fileURL.path))
        await client.shutdown()
    }

    @Test func anActorBasedCacheMakesTheClientReadyAndKeepsTheLiveConfiguration() async throws {
        let saved = Date(timeIntervalSinceNow: -120)
        let cache = MemoryCache(a, savedAt: saved)
        let client = await makeClient([.config(b)], cache: cache)
        let readiness = try await client.ready()
        #expect(readiness.source == .cache)
        #expect((readiness.configAge ?? .zero) >= 119, "the age comes from the actor's lastSaved")
        await harness.diagnostics.wait { $0.isCacheSaved }
        #expect(try await cache.load() == b)
        #expect(await cache.saveCount == 1)
        await client.shutdown()
    }

    @Test func firstLiveConfigIsWrittenToAnEmptyCache() async throws {
        let directory = TemporaryDirectory()
        defer { directory.cleanUp() }
        let cache = JSONFileConfigCache<ProjectConfig>(directory: directory.url)
        let client = await makeClient([.config(a)], cache: cache)
        try await client.ready()
        await harness.diagnostics.wait { $0.isCacheSaved }
        #expect(client.status.source == .live)
        #expect(try cache.load() == a)
        await client.shutdown()
    }

    @Test func injectedConfigMakesTheClientReadyAtOnceAndTheNetworkTakesOver() async throws {
        let client = await makeClient([.delayed(5, .config(b))], initialConfig: a)
        try await client.ready()
        #expect(client.status.source == .initial)
        #expect(client.config == a)
        // Ready from the initial configuration before the fetch starts: wait for its delay.
        try await harness.clock.waitForSleepers(1)
        harness.clock.advance(by: 5)
        await harness.diagnostics.wait { $0.appliedChange == .updated }
        #expect(client.status.source == .live)
        await client.shutdown()
    }

    @Test func statusReportsFailuresAndRecovery() async throws {
        let failure = MockConfigFetchService.Outcome.failure(MockConfigFetchService.SimulatedError("503"))
        let client = await makeClient([failure, failure, .config(a)])
        #expect(try await harness.clock.advanceToNextDeadline() == 1, "after the first failure")
        await harness.diagnostics.wait(for: 2) { $0.isFetchFailed }
        let failing = client.status
        #expect(failing.consecutiveFailures == 2)
        #expect(failing.lastFetchError is MockConfigFetchService.SimulatedError)
        #expect(failing.lastSuccessfulFetchDate == nil && !failing.isReady)
        #expect(try await harness.clock.advanceToNextDeadline() == 2, "after the second")
        try await client.ready()
        await harness.diagnostics.wait { $0.appliedChange == .first }
        let recovered = client.status
        #expect(recovered.consecutiveFailures == 0)
        #expect(recovered.lastFetchError == nil)
        #expect(recovered.lastSuccessfulFetchDate != nil && recovered.lastUpdated != nil)
        #expect(recovered.source == .live)
        await client.shutdown()
        #expect(client.status.isShutDown && !client.status.isReady)
    }
}
