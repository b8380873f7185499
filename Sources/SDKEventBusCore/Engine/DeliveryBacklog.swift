/// How far a delivery lane is behind: the facts of a ``BusDiagnostic/backlog(_:)`` report.
public struct DeliveryBacklog: Sendable, Hashable, CustomStringConvertible {
    /// The lane: `main actor`, `immediate`, or `actor` and the actor's type.
    public var lane: String
    /// How many fires are waiting for the lane's executor now.
    public var pending: Int
    /// The most fires ever waiting at once on this lane.
    public var highWaterMark: Int
    /// How long the oldest waiting fire has waited.
    public var oldestAge: Duration

    /// A line for logs.
    public var description: String {
        "\(pending) fires waiting for the \(lane) lane (the oldest for \(oldestAge); "
            + "high-water mark \(highWaterMark)): its executor is not keeping up"
    }
}
