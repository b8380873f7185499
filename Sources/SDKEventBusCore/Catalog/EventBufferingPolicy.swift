/// What an event sequence keeps when its consumer falls behind.
///
/// ```swift
/// for await payload in bus.stream(.bucketing, bufferingPolicy: .bufferingOldest(1_000)) { … }
/// ```
///
/// Not closed: a later major release may add cases (a minor release does not; see Versioning), so a
/// `switch` over it ends with `@unknown default` after its cases, which a binary SDK's
/// library-evolution build requires anyway.
public enum EventBufferingPolicy: Sendable, Equatable {
    /// Keeps every event: memory grows as long as the consumer is behind.
    case unbounded
    /// Keeps the oldest events up to the limit and drops newer ones while the buffer is full.
    case bufferingOldest(Int)
    /// Keeps the newest events up to the limit and drops the oldest ones to make room.
    case bufferingNewest(Int)

    /// The default: the newest 256 events.
    ///
    /// Bounded, so a consumer that stops iterating cannot grow memory without limit.
    public static let `default` = EventBufferingPolicy.bufferingNewest(256)

    package func streamPolicy<Element>(for _: Element.Type) -> AsyncStream<Element>.Continuation.BufferingPolicy {
        switch self {
        case .unbounded: .unbounded
        case .bufferingOldest(let limit): .bufferingOldest(max(limit, 1))
        case .bufferingNewest(let limit): .bufferingNewest(max(limit, 1))
        }
    }
}
