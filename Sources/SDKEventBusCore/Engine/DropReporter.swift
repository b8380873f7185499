/// Counts the events a sequence's buffer drops and reports every one of them, without flooding the
/// hook.
///
/// Reports come at the sequence's first drop, then whenever 256 more have piled up, and with the
/// remainder when the sequence ends; each report counts one event's drops since its last report. So
/// the reports of a sequence add up to exactly the events it dropped, and a stalled consumer costs
/// one report per 256 drops.
package final class DropReporter: Sendable {
    private struct Counts {
        /// Drops not yet reported, per event, in the order each event first dropped.
        var unreported: [(event: String, count: Int)] = []
        var unreportedTotal = 0
        var hasReported = false
        /// Whether the sequence has ended: a drop racing its end is reported at once.
        var isFinished = false

        /// Takes every unreported count.
        mutating func take() -> [(event: String, count: Int)] {
            defer {
                unreported.removeAll(keepingCapacity: true)
                unreportedTotal = 0
                hasReported = true
            }
            return unreported
        }
    }

    private let policy: EventBufferingPolicy
    private let diagnostics: (@Sendable (BusDiagnostic) -> Void)?
    private let counts = LockedValue(Counts())

    /// Reports at the first drop, then once per this many.
    static let reportInterval = 256

    package init(policy: EventBufferingPolicy, diagnostics: (@Sendable (BusDiagnostic) -> Void)?) {
        self.policy = policy
        self.diagnostics = diagnostics
    }

    /// Counts one dropped event of `event`, and reports if due.
    package func record(_ event: String) {
        guard diagnostics != nil else { return }
        let reports = counts.withLock { counts -> [(event: String, count: Int)] in
            if let index = counts.unreported.firstIndex(where: { $0.event == event }) {
                counts.unreported[index].count += 1
            } else {
                counts.unreported.append((event, 1))
            }
            counts.unreportedTotal += 1
            guard !counts.hasReported || counts.isFinished || counts.unreportedTotal >= Self.reportInterval else {
                return []
            }
            return counts.take()
        }
        report(reports)
    }

    /// Reports the drops not yet reported: the sequence has ended.
    package func finish() {
        guard diagnostics != nil else { return }
        let reports = counts.withLock { counts in
            counts.isFinished = true
            return counts.take()
        }
        report(reports)
    }

    private func report(_ reports: [(event: String, count: Int)]) {
        for (event, count) in reports {
            diagnostics?(.sequenceDropped(event: event, dropped: count, policy: policy))
        }
    }
}
