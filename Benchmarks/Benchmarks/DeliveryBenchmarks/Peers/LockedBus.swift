import Foundation
import SDKEventBus

/// A synchronous lock-guarded bus: it snapshots the handlers under the lock and calls them after
/// unlocking, on the caller's thread.
final class LockedBus: @unchecked Sendable {
    // @unchecked: `handlers` and `nextToken` are only touched while holding `lock`.
    typealias Callback = @MainActor @Sendable (EventPayloadValue) -> Void
    private let lock = NSLock()
    private var handlers: [SystemEvent: [UInt64: Callback]] = [:]
    private var nextToken: UInt64 = 0

    func on(_ event: SystemEvent, callback: @escaping Callback) -> UInt64 {
        lock.withLock {
            nextToken += 1
            handlers[event, default: [:]][nextToken] = callback
            return nextToken
        }
    }

    func off(_ token: UInt64) {
        lock.withLock {
            for event in handlers.keys {
                handlers[event]?[token] = nil
            }
        }
    }

    @MainActor
    func fire(_ payload: EventPayloadValue) {
        let snapshot = lock.withLock { Array(handlers[payload.event]?.values ?? [:].values) }
        for callback in snapshot {
            callback(payload)
        }
    }
}

@MainActor
final class LockedBusPeer: DeliveryPeer {
    nonisolated static let name = "lock + snapshot, inline"
    let bus = LockedBus()

    init(listeners: Int, sink: Sink) async {
        for _ in 0..<listeners {
            _ = bus.on(.bucketing, callback: callback(for: sink))
        }
    }

    func fire(_ payload: EventPayloadValue) async {
        bus.fire(payload)
    }
}

struct LockedBusSubscriptionPeer: SubscriptionPeer {
    static let name = "lock + snapshot, inline"
    let bus = LockedBus()

    init(liveListeners: Int) async {
        for index in 0..<liveListeners {
            _ = bus.on(SystemEvent.allCases[index % 10]) { _ in }
        }
    }

    func subscribeAndUnsubscribe() async {
        bus.off(bus.on(.bucketing) { _ in })
    }
}
