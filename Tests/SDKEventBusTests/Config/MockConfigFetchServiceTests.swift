import Foundation
import SDKEventBusTesting
import Testing

@testable import SDKEventBus

@Suite(.timeLimit(.minutes(2))) struct MockConfigFetchServiceTests {
    let a = Fixtures.config(named: "A")
    let b = Fixtures.config(named: "B")

    @Test func playsTheScriptInOrderThenRepeatsTheLastOutcome() async throws {
        let service = MockConfigFetchService([.config(a), .config(b)])
        #expect(try await service.fetchLiveConfig() == a)
        #expect(try await service.fetchLiveConfig() == b)
        #expect(try await service.fetchLiveConfig() == b)
        #expect(service.fetchCount == 3)
    }

    @Test func playsTheAfterScriptOutcomeOnceTheScriptRunsOut() async throws {
        let service = MockConfigFetchService(
            [.config(a)], afterScript: .failure(MockConfigFetchService.SimulatedError("down")))
        _ = try await service.fetchLiveConfig()
        await #expect(throws: MockConfigFetchService.SimulatedError("down")) { try await service.fetchLiveConfig() }
    }

    @Test func appendedOutcomesPlayAfterTheScript() async throws {
        let service = MockConfigFetchService([.config(a)])
        service.append(.config(b))
        _ = try await service.fetchLiveConfig()
        #expect(try await service.fetchLiveConfig() == b)
    }

    @Test func bodiesGoThroughTheSameDecoderAsRealOnes() async throws {
        let service = MockConfigFetchService([.body(Fixtures.projectConfigData), .body(Data("{\"account_id\":".utf8))])
        #expect(try await service.fetchLiveConfig() == Fixtures.projectConfig)
        var expected: ConfigDecodingError?
        do { _ = try ProjectConfig(jsonData: Data("{\"account_id\":".utf8)) } catch { expected = error }
        await #expect(throws: expected!) { try await service.fetchLiveConfig() }
    }

    @Test func delayedOutcomeWaitsOnTheServiceClock() async throws {
        let clock = TestClock()
        let service = MockConfigFetchService([.delayed(.seconds(3), .config(a))], clock: clock)
        let fetch = Task { try await service.fetchLiveConfig() }
        #expect(await clock.nextDeadline() == .seconds(3))
        clock.advance(by: .seconds(3))
        #expect(try await fetch.value == a)
    }

    @Test func hangingFetchEndsWithCancellationWhenCancelled() async {
        let service = MockConfigFetchService([.hang])
        let fetch = Task { try await service.fetchLiveConfig() }
        await service.waitForFetches(1)
        fetch.cancel()
        await #expect(throws: CancellationError.self) { try await fetch.value }
    }
}
