public import Foundation

/// How long the SDK waits before fetching again after a failure: capped exponential backoff with
/// jitter.
///
/// The n-th consecutive failure waits `initialDelay × multiplier^(n-1)`, capped at `maximumDelay`,
/// then shortened by a random fraction of up to `jitter`, so that many devices that failed together
/// do not retry together.
///
/// ```swift
/// let policy = RetryPolicy(initialDelay: 1, multiplier: 2, maximumDelay: 60, jitter: 0.2)
/// // failures 1, 2, 3, … wait about 1 s, 2 s, 4 s, … 60 s, each shortened by up to 20 %.
/// ```
///
/// No wait is ever shorter than 100 ms or longer than a day, whatever the settings and the jitter
/// (values set through the properties are clamped where they are used, as `init` clamps its
/// arguments), so that a misconfigured policy cannot hammer the configuration server in a loop.
public struct RetryPolicy: Sendable {
    /// The shortest wait after a failure: 100 ms.
    static let minimumDelay: TimeInterval = 0.1

    /// The longest wait a policy allows: a day.
    static let longestDelay: TimeInterval = 86_400

    /// The wait after the first failure, in seconds.
    public var initialDelay: TimeInterval
    /// How much each further consecutive failure multiplies the wait.
    public var multiplier: Double
    /// The longest wait, in seconds.
    public var maximumDelay: TimeInterval
    /// The largest fraction, from 0 to 1, by which a wait is randomly shortened.
    public var jitter: Double

    /// Creates a policy.
    ///
    /// - Parameters:
    ///   - initialDelay: The wait after the first failure, in seconds: from 100 ms to a day (1 s
    ///     when it is not a number).
    ///   - multiplier: How much each further consecutive failure multiplies the wait (at least 1).
    ///   - maximumDelay: The longest wait, in seconds: from `initialDelay` to a day.
    ///   - jitter: The largest fraction, from 0 to 1, by which a wait is randomly shortened.
    public init(
        initialDelay: TimeInterval = 1,
        multiplier: Double = 2,
        maximumDelay: TimeInterval = 60,
        jitter: Double = 0.2
    ) {
        (self.initialDelay, self.multiplier, self.maximumDelay, self.jitter) = Self.clamped(
            initialDelay: initialDelay, multiplier: multiplier, maximumDelay: maximumDelay, jitter: jitter)
    }

    /// The values a policy may hold: what `init` keeps, and what ``delay(afterFailures:random:)``
    /// uses, however the public properties were set since.
    private static func clamped(
        initialDelay: TimeInterval, multiplier: Double, maximumDelay: TimeInterval, jitter: Double
    ) -> (initialDelay: TimeInterval, multiplier: Double, maximumDelay: TimeInterval, jitter: Double) {
        let initial = min(max(initialDelay.isNaN ? 1 : initialDelay, minimumDelay), longestDelay)
        let maximum = min(max(maximumDelay.isNaN ? longestDelay : maximumDelay, initial), longestDelay)
        return (
            initial,
            multiplier.isFinite ? max(multiplier, 1) : 2,
            maximum,
            jitter.isFinite ? min(max(jitter, 0), 1) : 0.2
        )
    }

    /// The wait after the given number of consecutive failures.
    ///
    /// The policy's values are clamped here as `init` clamps them, so a property set to a value out
    /// of range (`nan`, zero, negative, infinite) cannot shorten a wait below ``minimumDelay``.
    ///
    /// - Parameters:
    ///   - failures: How many fetches in a row have failed, from 1.
    ///   - random: A number in `0..<1` that picks the jitter; the SDK passes a random one.
    /// - Returns: How long to wait before fetching again, in seconds, from ``minimumDelay`` to
    ///   ``longestDelay``.
    func delay(afterFailures failures: Int, random: Double) -> TimeInterval {
        let policy = Self.clamped(
            initialDelay: initialDelay, multiplier: multiplier, maximumDelay: maximumDelay, jitter: jitter)
        // Clamped to the cap at every step, so no product can overflow.
        var delay = policy.initialDelay
        var steps = max(failures, 1) - 1
        // Stops once the delay stops growing (at the cap, or with a multiplier of 1), so even
        // `Int.max` failures take a few dozen steps.
        while steps > 0 {
            let next = min(delay * policy.multiplier, policy.maximumDelay)
            guard next > delay else { break }
            delay = next
            steps -= 1
        }
        let unit = random.isFinite ? min(max(random, 0), 1) : 0
        return max(delay * (1 - policy.jitter * unit), Self.minimumDelay)
    }
}
