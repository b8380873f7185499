internal import SDKEventBusCore

#if canImport(os)
    internal import os
#endif

/// The timeline's signposts, for Instruments: an interval per delivery, an event per fire,
/// diagnostic and step, under the subsystem and category the SDK names.
///
/// Apple platforms only (`os`): `OSSignposter` where the system has it (iOS 15, macOS 12, tvOS 15,
/// watchOS 8), `os_signpost` below. Elsewhere ``make(subsystem:category:)`` makes none. The code the
/// Linux compiler never sees is the few calls below; Scripts/check-availability.py lists it for
/// review.
enum TimelineSignposts {
    /// Signposts under `subsystem` and `category`, or `nil` where the platform has none.
    ///
    /// - Parameters:
    ///   - subsystem: The SDK's subsystem.
    ///   - category: The category.
    ///   - eventName: The name of an event, given its index.
    /// - Returns: The signposts' sink.
    static func make(
        subsystem: String, category: String, eventName: @escaping @Sendable (Int) -> String
    ) -> (any TimelineSink)? {
        #if canImport(os)
            if #available(iOS 15, macOS 12, tvOS 15, watchOS 8, *) {
                return SignposterSink(subsystem: subsystem, category: category, eventName: eventName)
            }
            return LegacySignpostSink(subsystem: subsystem, category: category, eventName: eventName)
        #else
            return nil
        #endif
    }
}

#if canImport(os)
    /// Signposts through `OSSignposter`.
    @available(iOS 15, macOS 12, tvOS 15, watchOS 8, *)
    final class SignposterSink: TimelineSink, @unchecked Sendable {
        // @unchecked: `OSSignposter` is thread-safe and immutable here.
        private let signposter: OSSignposter
        private let eventName: @Sendable (Int) -> String

        init(subsystem: String, category: String, eventName: @escaping @Sendable (Int) -> String) {
            signposter = OSSignposter(subsystem: subsystem, category: category)
            self.eventName = eventName
        }

        func fired(stamp: UInt64, end: UInt64, event: Int, thread: UInt64, isMainThread: Bool) {
            signposter.emitEvent("fire", "\(self.eventName(event), privacy: .public)")
        }

        func willDeliver(fire: UInt64, event: Int, laneName: String) -> UInt64 {
            let id = signposter.makeSignpostID()
            _ = signposter.beginInterval(
                "delivery", id: id, "\(self.eventName(event), privacy: .public) on \(laneName, privacy: .public)")
            return id.rawValue
        }

        func delivered(
            _ delivery: (fire: UInt64, event: Int, lane: Int, laneName: String, listener: UInt64, site: UInt32),
            start: UInt64, end: UInt64, token: UInt64
        ) {
            signposter.endInterval("delivery", .beginState(id: OSSignpostID(token)))
        }

        func noted(_ diagnostic: BusDiagnostic, time: UInt64) {
            signposter.emitEvent("diagnostic", "\(diagnostic.description, privacy: .public)")
        }

        func noted(step name: String, detail: String, phase: TimelineStepPhase, time: UInt64) {
            signposter.emitEvent("step", "\(name, privacy: .public): \(detail, privacy: .public)")
        }
    }

    /// Signposts through `os_signpost`, below iOS 15.
    final class LegacySignpostSink: TimelineSink, @unchecked Sendable {
        // @unchecked: `OSLog` is thread-safe and immutable here.
        private let log: OSLog
        private let eventName: @Sendable (Int) -> String

        init(subsystem: String, category: String, eventName: @escaping @Sendable (Int) -> String) {
            log = OSLog(subsystem: subsystem, category: category)
            self.eventName = eventName
        }

        func fired(stamp: UInt64, end: UInt64, event: Int, thread: UInt64, isMainThread: Bool) {
            os_signpost(.event, log: log, name: "fire", "%{public}s", eventName(event))
        }

        func willDeliver(fire: UInt64, event: Int, laneName: String) -> UInt64 {
            let id = OSSignpostID(log: log)
            os_signpost(
                .begin, log: log, name: "delivery", signpostID: id, "%{public}s on %{public}s", eventName(event),
                laneName)
            return id.rawValue
        }

        func delivered(
            _ delivery: (fire: UInt64, event: Int, lane: Int, laneName: String, listener: UInt64, site: UInt32),
            start: UInt64, end: UInt64, token: UInt64
        ) {
            os_signpost(.end, log: log, name: "delivery", signpostID: OSSignpostID(token))
        }

        func noted(_ diagnostic: BusDiagnostic, time: UInt64) {
            os_signpost(.event, log: log, name: "diagnostic", "%{public}s", diagnostic.description)
        }

        func noted(step name: String, detail: String, phase: TimelineStepPhase, time: UInt64) {
            os_signpost(.event, log: log, name: "step", "%{public}s: %{public}s", name, detail)
        }
    }
#endif
