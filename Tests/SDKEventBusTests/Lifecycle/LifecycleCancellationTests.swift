import Dispatch
import Foundation
import SDKEventBusTesting
import Testing

@testable import SDKEventBus
@testable import SDKEventBusConfig
@testable import SDKEventBusCore
@testable import SDKEventBusWire

/// Cancellation in the lifecycle, wherever it lands: a fetch that starts as the lifecycle stops is
/// cancelled with it, and cancelled `refreshNow()` callers leave nothing behind.
@Suite struct LifecycleCancellationTests {
    let a = Fixtures.config(named: "A")

    /// Cancels the lifecycle's task from a thread of its own as its first fetch starts, at a point
    /// that varies from round to round: every fetch that started is cancelled, so none runs on after
    /// the lifecycle stopped. (The exact interleaving that once orphaned a fetch, a cancellation
    /// between the wait's registration and the fetch task's creation, is played step by step in
    /// `FirstResultStateMachineTests`.)
    @Test func aFetchStartingAsTheLifecycleStopsIsCancelledWithIt() async {
        let service = CountingFetchService()
        for round in 0..<200 {
            let (_, emitter) = EventBus.makeBus()
            let running = LockedValue<Task<Void, Never>?>(nil)
            let lifecycle = ConfigLifecycle(
                store: ConfigStore(emitter: emitter),
                fetchService: service,
                configuration: SDKConfiguration(
                    refreshInterval: nil,
                    diagnostics: { step in
                        guard case .fetchStarted = step, let task = running.withLock({ $0 }) else { return }
                        onAThreadOfItsOwn {
                            spin(round % 50 * 20)
                            task.cancel()
                        }
                    }
                ).on(TestClock())
            )
            // Known to the diagnostics before the lifecycle can report its first fetch.
            let known = Suspension()
            let run = Task {
                await known.wait()
                await lifecycle.run()
            }
            running.withLock { $0 = run }
            known.resume()
            await run.value
        }
        #expect(service.counts.started > 0)
        let settled = await offThePool { service.waitUntilEveryFetchEnded(timeout: 10) }
        #expect(settled, "a fetch outlived its lifecycle, never cancelled: \(service.counts)")
    }

    @Test func cancelledRefreshCallersLeaveNoBookkeepingBehind() async {
        let (_, emitter) = EventBus.makeBus()
        let lifecycle = ConfigLifecycle(
            store: ConfigStore(emitter: emitter),
            fetchService: MockConfigFetchService([.config(a)]),
            configuration: SDKConfiguration(refreshInterval: nil).on(TestClock())
        )
        let run = Task { await lifecycle.run() }
        run.cancel()
        await run.value
        for _ in 0..<1_000 {
            let caller = Task {
                withUnsafeCurrentTask { $0?.cancel() }
                return try await lifecycle.refreshNow()
            }
            _ = await caller.result
        }
        #expect(lifecycle.refreshBookkeepingCount == 0, "one entry per cancelled caller, kept forever")
    }
}

/// Spins for `turns` turns of a loop: a delay finer than any wait.
@Sendable func spin(_ turns: Int) {
    var sum = 0
    for turn in 0..<turns { sum &+= turn }
    _ = sum
}

/// A fetch service whose fetches suspend until cancelled, counting those that started and ended.
final class CountingFetchService: ConfigFetchService {
    private let state = LockedValue((started: 0, ended: 0))
    private let endedSignal = DispatchSemaphore(value: 0)

    var counts: (started: Int, ended: Int) { state.withLock { $0 } }

    @concurrent
    func fetchLiveConfig() async throws -> ProjectConfig {
        state.withLock { $0.started += 1 }
        defer {
            state.withLock { $0.ended += 1 }
            endedSignal.signal()
        }
        let gate = LockedValue<CheckedContinuation<Void, Never>?>(nil)
        await withTaskCancellationHandler {
            await withCheckedContinuation { (continuation: CheckedContinuation<Void, Never>) in
                gate.withLock { $0 = continuation }
                if Task.isCancelled { gate.withLock { $0.take() }?.resume() }
            }
        } onCancel: {
            gate.withLock { $0.take() }?.resume()
        }
        throw CancellationError()
    }

    /// Blocks until every fetch that started has ended, or `timeout` passes.
    func waitUntilEveryFetchEnded(timeout: TimeInterval) -> Bool {
        let deadline = DispatchTime.now() + timeout
        while true {
            let (started, ended) = counts
            if ended >= started { return true }
            guard endedSignal.wait(timeout: deadline) == .success else { return false }
        }
    }
}

extension Optional {
    fileprivate mutating func take() -> Wrapped? {
        defer { self = nil }
        return self
    }
}
