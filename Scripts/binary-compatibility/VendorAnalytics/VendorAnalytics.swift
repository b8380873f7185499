// Vendor A: an analytics SDK shipped as a binary, on the events product alone. It is built with
// library evolution against a released SDKEventBus (Scripts/check-binary-compatibility.sh builds it
// against 1.0.0) and links the package's shared libraries without embedding them.

import Foundation
public import SDKEventBusCore

/// The analytics SDK's events.
public enum AnalyticsEvent: String, EventCatalog {
    /// An event was tracked.
    case tracked
    /// The queue was uploaded.
    case uploaded

    /// The payloads, one case per event.
    public typealias Payload = AnalyticsPayload
}

/// The analytics SDK's payloads.
public enum AnalyticsPayload: CatalogPayload, Equatable {
    /// An event of this name was tracked.
    case tracked(name: String)
    /// This many events were uploaded.
    case uploaded(count: Int)

    /// The event each payload belongs to.
    public var event: AnalyticsEvent {
        switch self {
        case .tracked: .tracked
        case .uploaded: .uploaded
        }
    }
}

/// What an app holds of the analytics SDK: it tracks, and listens; only the SDK fires.
public final class Analytics: CatalogSubscribing {
    /// The SDK's bus, on which app code listens.
    public let bus: CatalogBus<AnalyticsEvent>
    private let emitter: CatalogEmitter<AnalyticsEvent>
    private let pending = Pending()

    /// Starts the SDK with its own bus.
    public init() { (bus, emitter) = CatalogBus<AnalyticsEvent>.makeBus() }

    /// Tracks the event `name`, announcing it.
    public func track(_ name: String) {
        pending.add()
        emitter.fire(.tracked(name: name))
    }

    /// Uploads the queue now, announcing how many events left.
    public func upload() { emitter.fire(.uploaded(count: pending.drain())) }
}

/// How many tracked events were not uploaded yet.
private final class Pending: @unchecked Sendable {
    // @unchecked: `count` is only reached under `lock`.
    private let lock = NSLock()
    private var count = 0

    func add() { lock.withLock { count += 1 } }

    func drain() -> Int {
        lock.withLock {
            defer { count = 0 }
            return count
        }
    }
}
