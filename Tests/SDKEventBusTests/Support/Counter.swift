@testable import SDKEventBus

/// A thread-safe counter for tests that count resumes or calls across tasks.
final class Counter: Sendable {
    private let value = LockedValue(0)

    var count: Int { value.withLock { $0 } }

    func increment() {
        value.withLock { $0 += 1 }
    }
}

/// Records every event a bus delivers, in order.
@MainActor
final class EventLog {
    private(set) var events: [EventPayloadValue] = []
    private var tokens: [EventListenerToken] = []

    var names: [SystemEvent] { events.map(\.event) }

    /// The payload of the first `.ready` event, if one arrived.
    var readiness: ReadyPayload? {
        events.lazy.compactMap { ReadyPayload($0) }.first
    }

    /// Subscribes to every event of `bus`.
    func attach(to bus: EventBus) async {
        for event in SystemEvent.allCases {
            tokens.append(bus.on(event) { [weak self] in self?.events.append($0) })
        }
    }
}
