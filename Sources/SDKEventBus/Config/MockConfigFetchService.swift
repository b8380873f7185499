public import Foundation

/// A fetch service that plays a script of outcomes, so tests and demos can drive any lifecycle
/// deterministically.
///
/// Each fetch takes the next outcome: a configuration, raw bytes (decoded by the same
/// ``ProjectConfig/init(jsonData:)`` as real bodies, so malformed ones fail the same way), an error,
/// a delay before another outcome, or a hang until the fetch is cancelled. When the script runs out,
/// every further fetch repeats `afterScript`, or the script's last outcome.
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
public final class MockConfigFetchService: ConfigFetchService {
    /// What one fetch does.
    public indirect enum Outcome: Sendable {
        /// Returns the configuration.
        case config(ProjectConfig)
        /// Decodes the bytes as a served body would be, and returns or throws accordingly.
        case body(Data)
        /// Throws the error.
        case failure(any Error)
        /// Waits for the duration on the service's clock, then plays the outcome.
        case delayed(Duration, Outcome)
        /// Suspends until the fetching task is cancelled, then throws `CancellationError`.
        case hang
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
        var fetchCount = 0
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
    public var fetchCount: Int { state.withLock { $0.fetchCount } }

    /// Plays the next outcome of the script.
    ///
    /// - Returns: The scripted configuration.
    /// - Throws: The scripted error, a ``ConfigDecodingError`` for malformed bytes, or
    ///   `CancellationError`.
    public func fetchLiveConfig() async throws -> ProjectConfig {
        let outcome = state.withLock { state -> Outcome? in
            state.fetchCount += 1
            guard state.next < state.script.count else { return state.afterScript ?? state.script.last }
            defer { state.next += 1 }
            return state.script[state.next]
        }
        return try await play(outcome ?? .hang)
    }

    private func play(_ outcome: Outcome) async throws -> ProjectConfig {
        switch outcome {
        case .config(let config):
            return config
        case .body(let data):
            return try ProjectConfig(jsonData: data)
        case .failure(let error):
            throw error
        case .delayed(let duration, let outcome):
            try await clock.sleep(for: duration)
            return try await play(outcome)
        case .hang:
            while true { try await Task.sleep(for: .seconds(3_600)) }
        }
    }
}
