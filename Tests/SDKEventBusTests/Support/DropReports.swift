@testable import SDKEventBus
@testable import SDKEventBusConfig
@testable import SDKEventBusCore
@testable import SDKEventBusWire

/// Collects the `sequenceDropped` reports a bus makes, for tests that check every drop is counted.
final class DropReports: Sendable {
    private let reports = LockedValue<[(event: String, dropped: Int)]>([])

    /// The hook to give the bus.
    var record: @Sendable (BusDiagnostic) -> Void {
        { [self] diagnostic in
            guard case .sequenceDropped(let event, let dropped, _) = diagnostic else { return }
            reports.withLock { $0.append((event, dropped)) }
        }
    }

    /// Each report's count, in order.
    var counts: [Int] { reports.withLock { $0.map(\.dropped) } }

    /// Each report's event, in order.
    var events: [String] { reports.withLock { $0.map(\.event) } }

    /// The drops of every report.
    var total: Int { counts.reduce(0, +) }
}
