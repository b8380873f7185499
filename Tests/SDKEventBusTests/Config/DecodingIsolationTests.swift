import Dispatch
import Foundation
import SDKEventBus
import SDKEventBusTesting
import Testing

/// Validating and decoding a body (up to megabytes) never runs on the caller's actor, so an SDK
/// that fetches from UI code never blocks the main actor with it.
@Suite struct DecodingIsolationTests {
    /// Marks the main dispatch queue, the main actor's executor, so that synchronous code can tell
    /// whether it runs there (on Linux the main actor's jobs need not run on the main thread).
    static let mainQueueMark: DispatchSpecificKey<Bool> = {
        let key = DispatchSpecificKey<Bool>()
        DispatchQueue.main.setSpecific(key: key, value: true)
        return key
    }()

    static var isOnTheMainQueue: Bool { DispatchQueue.getSpecific(key: mainQueueMark) == true }

    /// A configuration that records whether it was decoded on the main actor's queue.
    struct ThreadProbe: RemoteConfig {
        static let decodedOnTheMainQueue = LockedValue<[Bool]>([])

        static func decode(from body: Data) throws(JSONDecodingError) -> ThreadProbe {
            decodedOnTheMainQueue.withLock { $0.append(DecodingIsolationTests.isOnTheMainQueue) }
            return ThreadProbe()
        }
    }

    @MainActor
    @Test func decodingCalledFromTheMainActorRunsOffIt() async throws {
        #expect(Self.isOnTheMainQueue, "the probe recognizes the main actor")
        _ = try await ThreadProbe.decoded(from: Data("{}".utf8))
        let service = ScriptedConfigFetchService<ThreadProbe>([.body(Data("{}".utf8))])
        _ = try await service.fetchLiveConfig()
        #expect(ThreadProbe.decodedOnTheMainQueue.withLock { $0 } == [false, false])
    }
}
