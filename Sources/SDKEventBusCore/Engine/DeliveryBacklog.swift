/// How far a delivery lane is behind: the facts of a
/// ``BusDiagnostic/backlog(lane:pending:highWaterMark:oldestAge:)`` report.
struct DeliveryBacklog: Sendable, Equatable {
    var lane: String
    var pending: Int
    var highWaterMark: Int
    /// How long the oldest pending fire has waited, in nanoseconds.
    var oldestAgeNanoseconds: UInt64

    /// The report.
    var diagnostic: BusDiagnostic {
        .backlog(
            lane: lane, pending: pending, highWaterMark: highWaterMark,
            oldestAge: Double(oldestAgeNanoseconds) / 1e9)
    }
}
