/// What a client's ``CatalogClient/shutdown(timeout:)`` abandoned.
///
/// Shutdown abandons a fetch or cache call in flight at once, then waits for the lifecycle to stop
/// and for the events fired before it to be delivered, but never longer than its timeout, nor once
/// its calling task is cancelled: work that has not finished by then is abandoned too. Each is
/// listed here. The client is shut down either way: ``CatalogClient/ready(timeout:clock:)`` throws, later fires and
/// subscriptions do nothing, and undelivered events are dropped.
///
/// ```swift
/// let report = await sdk.shutdown(timeout: 2)
/// if !report.isComplete { logger.info("\(report)") }   // shut down, abandoning a fetch in flight
/// ```
public struct ShutdownReport: Sendable, CustomStringConvertible {
    /// A piece of work that shutdown stopped waiting for.
    ///
    /// An opaque code: new kinds of work can be added without breaking a `switch`.
    public struct Work: Equatable, Sendable {
        private enum Value: Sendable {
            case fetch
            case cache
            case lifecycle
            case delivery
        }

        private let value: Value

        /// A fetch was in flight: it was abandoned at once, without waiting for the fetch service
        /// to honour cancellation, and whatever it returns later is discarded.
        public static let fetch = Work(value: .fetch)
        /// A call to the ``ConfigCache`` was in flight: it was abandoned at once, and its result is
        /// discarded.
        public static let cache = Work(value: .cache)
        /// The lifecycle had not stopped: code it calls synchronously was still running (a
        /// diagnostics handler, or a listener called on the firing thread, that blocks).
        public static let lifecycle = Work(value: .lifecycle)
        /// Events fired before shutdown were not all delivered in time.
        ///
        /// A delivery context (an actor, or the main actor) did not run them; they are dropped.
        public static let delivery = Work(value: .delivery)

        /// The work's name, for the report's description.
        var name: String {
            switch value {
            case .fetch: "a fetch in flight"
            case .cache: "a cache call in flight"
            case .lifecycle: "the lifecycle"
            case .delivery: "the delivery of events fired before shutdown"
            }
        }
    }

    /// The work abandoned: a fetch or cache call in flight, then what had not finished within the
    /// bound; empty when nothing was.
    public let abandoned: [Work]

    /// Whether nothing was abandoned: no fetch or cache call was in flight, the lifecycle stopped
    /// and every event fired before shutdown was delivered in time.
    public var isComplete: Bool { abandoned.isEmpty }

    /// A line for logs.
    public var description: String {
        guard !isComplete else { return "shut down" }
        return "shut down, abandoning " + abandoned.map(\.name).joined(separator: " and ")
    }
}

extension [ShutdownReport.Work] {
    /// Notes `work` unless it is noted already.
    mutating func noteOnce(_ work: ShutdownReport.Work) {
        if !contains(work) { append(work) }
    }
}
