public import Foundation

/// Why waiting for readiness ended without the SDK becoming ready.
///
/// Cancelling the waiting task throws `CancellationError` instead.
///
/// ```swift
/// do {
///     try await sdk.ready(timeout: 2)
/// } catch ReadinessError.timedOut {
///     showCachedContent()   // the SDK keeps loading; a later ready() can still succeed
/// }
/// ```
///
/// Not closed: a later major release may add cases (a minor release does not; see Versioning), so a
/// `switch` over it ends with `@unknown default` after its cases, which a binary SDK's
/// library-evolution build requires anyway.
public enum ReadinessError: Error, Sendable, Equatable, CustomStringConvertible {
    /// The deadline, in seconds, passed before the first configuration arrived; the SDK keeps
    /// loading, and a later `ready()` can still succeed.
    case timedOut(after: TimeInterval)
    /// The SDK was shut down: it will never become ready; create a new one.
    case shutDown

    /// What happened and what to do about it.
    public var description: String {
        switch self {
        case .timedOut(let timeout):
            "the SDK did not become ready within \(timeout) seconds; "
                + "it is still loading its configuration, and a later ready() can still succeed"
        case .shutDown:
            "the SDK was shut down and will not become ready; create a new client"
        }
    }
}
