/// Why waiting for readiness ended without the SDK becoming ready.
///
/// Cancelling the waiting task throws `CancellationError` instead.
///
/// ```swift
/// do {
///     try await sdk.ready(timeout: .seconds(2))
/// } catch let error as ReadinessError where error.code == .timedOut {
///     showCachedContent()   // the SDK keeps loading; a later ready() can still succeed
/// }
/// ```
public struct ReadinessError: Error, Sendable, Hashable, CustomStringConvertible {
    /// The kind of failure.
    ///
    /// New codes may be added without breaking you.
    public struct Code: Hashable, Sendable, CustomStringConvertible {
        private enum Value: Hashable, Sendable {
            case timedOut
            case shutDown
        }

        private let value: Value

        /// The deadline passed before the first configuration arrived.
        ///
        /// The SDK keeps loading.
        public static let timedOut = Code(value: .timedOut)
        /// The SDK was shut down.
        ///
        /// It will never become ready; create a new one.
        public static let shutDown = Code(value: .shutDown)

        /// The code's name, for logs.
        public var description: String { "\(value)" }
    }

    /// The kind of failure.
    public let code: Code
    /// For ``Code/timedOut``, how long the caller waited.
    public let timeout: Duration?

    /// The error of a wait that ended because the SDK was shut down.
    public static let shutDown = ReadinessError(code: .shutDown, timeout: nil)

    /// The error of a wait that ended because `timeout` passed first.
    ///
    /// - Parameter timeout: How long the caller waited.
    /// - Returns: The error.
    public static func timedOut(after timeout: Duration) -> ReadinessError {
        ReadinessError(code: .timedOut, timeout: timeout)
    }

    /// What happened and what to do about it.
    public var description: String {
        switch code {
        case .timedOut:
            "the SDK did not become ready within \(timeout.map { "\($0)" } ?? "the timeout"); "
                + "it is still loading its configuration, and a later ready() can still succeed"
        default:
            "the SDK was shut down and will not become ready; create a new client"
        }
    }
}
