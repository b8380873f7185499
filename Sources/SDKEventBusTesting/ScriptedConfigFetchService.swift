public import Foundation
@_spi(Testing) public import SDKEventBusConfig
import SDKEventBusCoreTesting

/// A fetch service that plays a script of outcomes, so tests and demos can drive any lifecycle
/// deterministically, for any configuration type.
///
/// Each fetch takes the next outcome: a configuration, raw bytes (decoded by the same
/// ``/SDKEventBusConfig/RemoteConfig/decode(from:)`` as real bodies, so malformed ones fail the same way), an
/// error, a delay before another outcome, a hang until the fetch is cancelled, or a hang that
/// ignores cancellation (as a completion-handler bridge without cancellation support does). When
/// the script runs out, every further fetch repeats `afterScript`, or the script's last outcome.
/// ``calls`` records every fetch and how it ended.
///
/// ```swift
/// let service = MockConfigFetchService([
///     .failure(MockConfigFetchService.SimulatedError("connection reset")),
///     .config(config),
///     .body(Data("{\"account_id\":".utf8)),        // truncated: rejected, last good config kept
///     .delayed(1, .config(updated)),
/// ], afterScript: .hang)
/// let sdk = SDKClient(fetchService: service)
/// ```
public final class ScriptedConfigFetchService<Config: RemoteConfig>: ConfigFetching {
    /// What one fetch does.
    ///
    /// Not closed: a later major release may add outcomes (a minor release does not), so a `switch`
    /// over one ends with `@unknown default` after its cases.
    public indirect enum Outcome: Sendable {
        /// Returns the configuration.
        case config(Config)
        /// Decodes the bytes as a served body would be, and returns or throws accordingly.
        case body(Data)
        /// Throws the error.
        case failure(any Error)
        /// Waits for the given number of seconds on the service's clock, then plays the outcome.
        case delayed(TimeInterval, Outcome)
        /// Suspends until the fetching task is cancelled, then throws `CancellationError`.
        case hang
        /// Suspends until ``releaseHangingFetches()`` is called, ignoring cancellation, then throws
        /// `CancellationError`: a fetch that does not honour cancellation.
        case hangIgnoringCancellation
    }

    /// One fetch as the service saw it.
    public struct Call: Sendable {
        /// Which fetch it was, from 1.
        public var number: Int
        /// How it ended: the configuration, or the error; `nil` while it runs.
        public var result: Result<Config, any Error>?
    }

    /// An error that stands for a failed request in scripts.
    public struct SimulatedError: Error, Sendable, Equatable, CustomStringConvertible {
        /// What failed, for example `"connection reset"`.
        public var description: String

        /// Creates a simulated failure.
        ///
        /// - Parameter description: What failed.
        public init(_ description: String) {
            self.description = description
        }
    }

    private struct State {
        var script: [Outcome]
        var next = 0
        var afterScript: Outcome?
        var calls: [Call] = []
        /// How many fetches have ended, returning or throwing.
        var finished = 0
        /// Fetches suspended in ``Outcome/hangIgnoringCancellation``.
        var stuck: [CheckedContinuation<Void, Never>] = []
        /// How many times ``releaseHangingFetches()`` was called.
        ///
        /// A fetch notes it when it starts; if it has grown by the time the fetch comes to hang, a
        /// release came in between and the fetch does not hang: a release right after
        /// ``waitForFetches(_:within:)`` is never missed.
        var releases = 0
        /// Callers of ``waitForFetches(_:within:)``, each with the count it waits for.
        var startWaiters = BoundedWaiters<Int>()
        /// Callers of ``waitForFinishedFetches(_:within:)``, each with the count it waits for.
        var finishWaiters = BoundedWaiters<Int>()
    }

    private let state: LockedValue<State>
    private let clock: any TimerClock

    /// Creates a service that plays `script`.
    ///
    /// - Parameters:
    ///   - script: The outcomes of successive fetches.
    ///   - afterScript: The outcome of every fetch after the script; `nil` repeats the last one.
    ///   - clock: The clock ``Outcome/delayed(_:_:)`` waits on: pass the SDK's test clock; real time
    ///     when `nil`.
    public init(_ script: [Outcome], afterScript: Outcome? = nil, clock: TestClock? = nil) {
        state = LockedValue(State(script: script, afterScript: afterScript))
        self.clock = clock ?? SystemTimerClock()
    }

    /// Appends outcomes to the script.
    ///
    /// - Parameter outcomes: The outcomes of the fetches after those already scripted.
    public func append(_ outcomes: Outcome...) {
        state.withLock { $0.script += outcomes }
    }

    /// How many fetches have started.
    public var fetchCount: Int { state.withLock { $0.calls.count } }

    /// Every fetch so far, in order, with how it ended.
    public var calls: [Call] { state.withLock { $0.calls } }

    /// Returns once at least `count` fetches have started: a hook for tests, instead of polling.
    ///
    /// A fetch counts as started as soon as it has taken its outcome from the script, before it
    /// plays it.
    ///
    /// - Parameters:
    ///   - count: How many fetches to wait for, counting those already started.
    ///   - timeout: How long to wait at most, in seconds of real time.
    /// - Throws: ``/documentation/SDKEventBusCoreTesting/WaitTimeoutError`` when fewer have started when the bound
    ///   passes; `CancellationError` when the task is cancelled first.
    public func waitForFetches(_ count: Int, within timeout: TimeInterval = WaitTimeoutError.defaultTimeout)
        async throws
    {
        try await state.wait(on: \.startWaiters, for: count, within: timeout) {
            $0.calls.count >= count
        } timeoutError: {
            WaitTimeoutError(
                expected: "\(count) fetch(es) to start", observed: "\($0.calls.count)", timeout: timeout)
        }
    }

    /// Returns once at least `count` fetches have ended, returning or throwing: a hook for tests
    /// that must know a fetch is over, for example after ``releaseHangingFetches()``.
    ///
    /// - Parameters:
    ///   - count: How many fetches to wait for, counting those already ended.
    ///   - timeout: How long to wait at most, in seconds of real time.
    /// - Throws: ``/documentation/SDKEventBusCoreTesting/WaitTimeoutError`` when fewer have ended when the bound
    ///   passes; `CancellationError` when the task is cancelled first.
    public func waitForFinishedFetches(
        _ count: Int, within timeout: TimeInterval = WaitTimeoutError.defaultTimeout
    ) async throws {
        try await state.wait(on: \.finishWaiters, for: count, within: timeout) {
            $0.finished >= count
        } timeoutError: {
            WaitTimeoutError(
                expected: "\(count) fetch(es) to end",
                observed: "\($0.finished) ended of \($0.calls.count) started",
                timeout: timeout
            )
        }
    }

    /// Ends every fetch that has started and is stuck, or about to be stuck, in
    /// ``Outcome/hangIgnoringCancellation``: they throw `CancellationError`.
    ///
    /// The release is remembered: a fetch that started before this call (and so counts for
    /// ``waitForFetches(_:within:)``) but had not reached its hang yet ends as soon as it does. A fetch
    /// that starts after this call hangs until the next one.
    public func releaseHangingFetches() {
        for fetch in state.withLock({ state in
            state.releases += 1
            defer { state.stuck = [] }
            return state.stuck
        }) { fetch.resume() }
    }

    /// Plays the next outcome of the script, off the caller's actor.
    ///
    /// - Returns: The scripted configuration.
    /// - Throws: The scripted error, a ``/SDKEventBusWire/JSONDecodingError`` for malformed bytes, or
    ///   `CancellationError`.
    @concurrent
    public func fetchLiveConfig() async throws -> Config {
        let (number, outcome, releases, watchers) = state.withLock {
            state -> (Int, Outcome?, Int, [CheckedContinuation<Void, any Error>]) in
            state.calls.append(Call(number: state.calls.count + 1))
            let count = state.calls.count
            let outcome: Outcome?
            if state.next < state.script.count {
                outcome = state.script[state.next]
                state.next += 1
            } else {
                outcome = state.afterScript ?? state.script.last
            }
            return (count, outcome, state.releases, state.startWaiters.takeAll { $0 <= count })
        }
        for watcher in watchers { watcher.resume() }
        let result: Result<Config, any Error>
        do {
            result = .success(try await play(outcome ?? .hang, releasesAtStart: releases))
        } catch {
            result = .failure(error)
        }
        let finishWatchers = state.withLock { state in
            state.calls[number - 1].result = result
            state.finished += 1
            let finished = state.finished
            return state.finishWaiters.takeAll { $0 <= finished }
        }
        for watcher in finishWatchers { watcher.resume() }
        return try result.get()
    }

    private func play(_ outcome: Outcome, releasesAtStart: Int) async throws -> Config {
        switch outcome {
        case .config(let config):
            return config
        case .body(let data):
            return try Config.decode(from: data)
        case .failure(let error):
            throw error
        case .delayed(let duration, let outcome):
            try await clock.sleep(for: duration)
            return try await play(outcome, releasesAtStart: releasesAtStart)
        case .hang:
            while true { try await Task.sleep(nanoseconds: 3_600_000_000_000) }
        case .hangIgnoringCancellation:
            await withCheckedContinuation { continuation in
                let released = state.withLock { state in
                    guard state.releases == releasesAtStart else { return true }
                    state.stuck.append(continuation)
                    return false
                }
                if released { continuation.resume() }
            }
            throw CancellationError()
        }
    }
}
