public import Foundation

/// A test hook's wait that ended before what it waited for happened: what it waited for, how long,
/// and what it saw by then.
///
/// Every wait the package offers tests throws it when its bound passes: here, the event recorder's
/// ``EventRecorder/next(_:within:)``, ``EventRecorder/waitUntil(_:within:_:)`` and
/// ``EventRecorder/waitForCount(_:within:)``; in `SDKEventBusTesting`, which re-exports this module,
/// the scripted fetch service's `waitForFetches`, the client's and the store's
/// `waitForReadyWaiters`, the test clock's `waitForSleepers`, `timeUntilNextDeadline` and
/// `advanceToNextDeadline`, and the lifecycle recorder's `next` and `wait`. A test that would
/// otherwise hang fails with a sentence instead:
///
/// ```
/// waited 30.0 seconds for 2 fetch(es) to start; saw 1
/// ```
///
/// The bound is real time, whatever clock the code under test runs on: a test clock moves only when
/// the test advances it, and a test suspended in a wait cannot. Each wait
/// also ends at once with `CancellationError` when its task is cancelled.
public struct WaitTimeoutError: Error, Sendable, Hashable, CustomStringConvertible {
    /// What the wait was for, for example `2 fetch(es) to start`.
    public var expected: String
    /// What the hook saw when the bound passed, for example `1`.
    public var observed: String
    /// How long it waited, in seconds.
    public var timeout: TimeInterval

    /// Creates an error.
    ///
    /// - Parameters:
    ///   - expected: What the wait was for.
    ///   - observed: What the hook saw when the bound passed.
    ///   - timeout: How long it waited, in seconds.
    public init(expected: String, observed: String, timeout: TimeInterval) {
        self.expected = expected
        self.observed = observed
        self.timeout = timeout
    }

    /// The bound of a wait that is not given one: 30 seconds of real time.
    ///
    /// Long enough never to fail a correct test on a loaded machine (or under the thread
    /// sanitizer), short enough that a hung test fails with a message well before a CI job's own
    /// time limit.
    public static var defaultTimeout: TimeInterval { 30 }

    /// `waited <timeout> seconds for <expected>; saw <observed>`.
    public var description: String { "waited \(timeout) seconds for \(expected); saw \(observed)" }
}
