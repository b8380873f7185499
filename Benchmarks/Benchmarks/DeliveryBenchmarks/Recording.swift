import Foundation
import SDKEventBus
import SDKEventBusTimeline

/// Whether this run records the buses it measures: `SDKEVENTBUS_TIMELINE=1` starts the timeline of
/// the bus of every SDKEventBus scenario that calls ``recordIfAsked(_:)`` (a ring of 10,000, full
/// and overwriting after the warm-up), for the cost per fire and per delivery of recording against
/// the same scenarios without it (Docs/Performance.md).
let recordsTimeline = ProcessInfo.processInfo.environment["SDKEVENTBUS_TIMELINE"] == "1"

/// Starts `bus`'s timeline when the run records (see ``recordsTimeline``).
func recordIfAsked<Catalog>(_ bus: CatalogBus<Catalog>) {
    if recordsTimeline { bus.timeline.start() }
}
