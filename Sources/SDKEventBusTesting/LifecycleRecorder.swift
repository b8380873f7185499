public import Foundation
public import SDKEventBusConfig
import SDKEventBusCoreTesting

/// Records a configuration lifecycle's diagnostics, so that a test awaits a step — a rejected body,
/// a scheduled refresh — instead of sleeping: many steps fire no event to wait for.
///
/// ```swift
/// let steps = LifecycleRecorder()
/// var settings = SDKConfiguration()
/// settings.diagnostics = steps.handler
/// let sdk = SDKClient(configuration: settings, fetchService: service)
///
/// let failure = try await steps.next { $0.failure != nil }
/// ```
///
/// Works with Swift Testing and XCTest alike: a failed wait throws
/// ``/documentation/SDKEventBusCoreTesting/WaitTimeoutError``. Matching closures run outside the recorder's lock, so
/// they may read the recorder.
public final class LifecycleRecorder: Sendable {
    private let log = RecordingLog<LifecycleDiagnostic>()
    /// The steps before this index were returned by `next`, or recorded before one it returned.
    private let returnedUpTo = LockedValue(0)

    /// Creates an empty recorder.
    public init() {}

    /// The hook to pass as ``/SDKEventBusConfig/LifecycleConfiguration/diagnostics``.
    public var handler: @Sendable (LifecycleDiagnostic) -> Void {
        { [self] step in record(step) }
    }

    /// Every step recorded so far, in order.
    public var steps: [LifecycleDiagnostic] { log.elements }

    /// How many waits are in progress: zero once every wait has ended, however it ended.
    package var waiterCount: Int { log.waiterCount }

    private func record(_ step: LifecycleDiagnostic) {
        log.append(step)
    }

    /// Returns once `count` steps matching `matches` have been recorded in all.
    ///
    /// - Parameters:
    ///   - count: How many matching steps, counting those already recorded.
    ///   - expectation: What the test waits for, in words, for the failure message.
    ///   - timeout: How long to wait at most, in seconds of real time.
    ///   - matches: Which steps count; it runs outside the recorder's lock.
    /// - Throws: ``/documentation/SDKEventBusCoreTesting/WaitTimeoutError``; `CancellationError`.
    public func wait(
        for count: Int = 1,
        _ expectation: String = "a matching step",
        within timeout: TimeInterval = WaitTimeoutError.defaultTimeout,
        matching matches: @escaping @Sendable (LifecycleDiagnostic) -> Bool
    ) async throws {
        let expected = count == 1 ? expectation : "\(count) × \(expectation)"
        try await log.wait(
            until: { $0.count(where: matches) >= count },
            within: timeout,
            timeoutError: { steps in
                WaitTimeoutError(
                    expected: expected,
                    observed: WaitTimeoutError.recorded(steps, noun: "step(s)", separator: " | "),
                    timeout: timeout
                )
            }
        )
    }

    /// Returns the first matching step after the one an earlier `next` returned (from the first
    /// step, for the first call), once it has been recorded: a step recorded before the call counts,
    /// so a lifecycle that started before the test asked misses nothing.
    ///
    /// - Parameters:
    ///   - expectation: What the test waits for, in words, for the failure message.
    ///   - timeout: How long to wait at most, in seconds of real time.
    ///   - matches: Which step; it runs outside the recorder's lock.
    /// - Returns: The step.
    /// - Throws: ``/documentation/SDKEventBusCoreTesting/WaitTimeoutError``; `CancellationError`.
    @discardableResult
    public func next(
        _ expectation: String = "a matching step",
        within timeout: TimeInterval = WaitTimeoutError.defaultTimeout,
        matching matches: @escaping @Sendable (LifecycleDiagnostic) -> Bool
    ) async throws -> LifecycleDiagnostic {
        let returned = returnedUpTo.withLock { $0 }
        let skipped = log.elements.prefix(returned).count(where: matches)
        try await wait(for: skipped + 1, expectation, within: timeout, matching: matches)
        let steps = log.elements
        var found = 0
        for index in steps.indices where matches(steps[index]) {
            found += 1
            guard found == skipped + 1 else { continue }
            returnedUpTo.withLock { $0 = max($0, index + 1) }
            return steps[index]
        }
        preconditionFailure("wait(for:) returned before the step was recorded")
    }
}
