import Foundation
import SDKEventBus

/// Foundation's `NotificationCenter` with block observers, posted from the main actor so that the
/// blocks run there, inline.
@MainActor
final class NotificationCenterPeer: DeliveryPeer {
    nonisolated static let name = "NotificationCenter"
    let center = NotificationCenter()
    var observers: [any NSObjectProtocol] = []

    init(listeners: Int, sink: Sink) async {
        for _ in 0..<listeners {
            observers.append(
                center.addObserver(forName: Self.notificationName(.bucketing), object: nil, queue: nil) { note in
                    guard let payload = note.userInfo?["payload"] as? EventPayloadValue else { return }
                    MainActor.assumeIsolated { sink.receive(payload) }
                })
        }
    }

    func fire(_ payload: EventPayloadValue) async {
        center.post(name: Self.notificationName(payload.event), object: nil, userInfo: ["payload": payload])
    }

    nonisolated static func notificationName(_ event: SystemEvent) -> Notification.Name {
        Notification.Name(event.rawValue)
    }
}

struct NotificationCenterSubscriptionPeer: SubscriptionPeer {
    static let name = "NotificationCenter"
    let center = NotificationCenter()

    init(liveListeners: Int) async {
        for index in 0..<liveListeners {
            let name = NotificationCenterPeer.notificationName(SystemEvent.allCases[index % 10])
            _ = center.addObserver(forName: name, object: nil, queue: nil) { _ in }
        }
    }

    func subscribeAndUnsubscribe() async {
        let observer = center.addObserver(
            forName: NotificationCenterPeer.notificationName(.bucketing),
            object: nil,
            queue: nil
        ) { _ in }
        center.removeObserver(observer)
    }
}
