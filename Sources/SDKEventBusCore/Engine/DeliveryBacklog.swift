/// How far a delivery lane is behind: the facts of a
/// ``BusDiagnostic/backlog(lane:pending:highWaterMark:oldestAge:)`` report.
struct DeliveryBacklog: Sendable, Equatable {
    var lane: String
    var pending: Int
    var highWaterMark: Int
    var oldestAge: Duration

    /// The report.
    var diagnostic: BusDiagnostic {
        .backlog(lane: lane, pending: pending, highWaterMark: highWaterMark, oldestAge: oldestAge)
    }
}
