public import Foundation

/// A fetch service that plays a script of outcomes, so tests and demos can drive any lifecycle
/// deterministically, for any configuration type.
///
/// Each fetch takes the next outcome: a configuration, raw bytes (decoded by the same
/// ``RemoteConfiguration/decode(from:)`` as real bodies, so malformed ones fail the same way), an
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
///     .delayed(.seconds(1), .config(updated)),
/// ], afterScript: .hang)
/// let sdk = SDKClient(fetchService: service)
/// ```
public final class ScriptedConfigFetchService<Config: RemoteConfiguration>: ConfigFetchService {
    /// What one fetch does.
    public indirect enum Outcome: Sendable {
        /// Returns the configuration.
        case config(Config)
        /// Decodes the bytes as a served body would be, and returns or throws accordingly.
        case body(Data)
        /// Throws the error.
        case failure(any Error)
        /// Waits for the duration on the service's clock, then plays the outcome.
        case delayed(Duration, Outcome)
        /// Suspends until the fetching task is cancelled, then throws `CancellationError`.
        case hang
        /// Suspends until ``release()`` is called, ignoring cancellation, then throws
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
        var stuck: [CheckedContinuation<Void, Never>] = []
        var fetchWatchers: [(count: Int, continuation: CheckedContinuation<Void, Never>)] = []
    }

    private let state: LockedValue<State>
    private let clock: any Clock<Duration>

    /// Creates a service that plays `script`.
    ///
    /// - Parameters:
    ///   - script: The outcomes of successive fetches.
    ///   - afterScript: The outcome of every fetch after the script; `nil` repeats the last one.
    ///   - clock: The clock ``Outcome/delayed(_:_:)`` waits on; pass the SDK's test clock.
    public init(_ script: [Outcome], afterScript: Outcome? = nil, clock: any Clock<Duration> = ContinuousClock()) {
        state = LockedValue(State(script: script, afterScript: afterScript))
        self.clock = clock
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
    /// - Parameter count: How many fetches to wait for.
    public func waitForFetches(_ count: Int) async {
        await withCheckedContinuation { (continuation: CheckedContinuation<Void, Never>) in
            let now = state.withLock { state -> Bool in
                guard state.calls.count < count else { return true }
                state.fetchWatchers.append((count, continuation))
                return false
            }
            if now { continuation.resume() }
        }
    }

    /// Ends every fetch stuck in ``Outcome/hangIgnoringCancellation``.
    public func release() {
        for fetch in state.withLock({ state in
            defer { state.stuck = [] }
            return state.stuck
        }) { fetch.resume() }
    }

    /// Plays the next outcome of the script, off the caller's actor.
    ///
    /// - Returns: The scripted configuration.
    /// - Throws: The scripted error, a ``ConfigDecodingError`` for malformed bytes, or
    ///   `CancellationError`.
    @concurrent
    public func fetchLiveConfig() async throws -> Config {
        let (number, outcome, watchers) = state.withLock {
            state -> (Int, Outcome?, [CheckedContinuation<Void, Never>]) in
            state.calls.append(Call(number: state.calls.count + 1))
            let count = state.calls.count
            let ready = state.fetchWatchers.filter { $0.count <= count }.map(\.continuation)
            state.fetchWatchers.removeAll { $0.count <= count }
            let outcome: Outcome?
            if state.next < state.script.count {
                outcome = state.script[state.next]
                state.next += 1
            } else {
                outcome = state.afterScript ?? state.script.last
            }
            return (count, outcome, ready)
        }
        for watcher in watchers { watcher.resume() }
        do {
            let config = try await play(outcome ?? .hang)
            state.withLock { $0.calls[number - 1].result = .success(config) }
            return config
        } catch {
            state.withLock { $0.calls[number - 1].result = .failure(error) }
            throw error
        }
    }

    private func play(_ outcome: Outcome) async throws -> Config {
        switch outcome {
        case .config(let config):
            return config
        case .body(let data):
            return try Config.decode(from: data)
        case .failure(let error):
            throw error
        case .delayed(let duration, let outcome):
            try await clock.sleep(for: duration)
            return try await play(outcome)
        case .hang:
            while true { try await Task.sleep(for: .seconds(3_600)) }
        case .hangIgnoringCancellation:
            await withCheckedContinuation { continuation in state.withLock { $0.stuck.append(continuation) } }
            throw CancellationError()
        }
    }
}

/// The built-in configuration's scripted fetch service; see ``ScriptedConfigFetchService``.
public typealias MockConfigFetchService = ScriptedConfigFetchService<ProjectConfig>
