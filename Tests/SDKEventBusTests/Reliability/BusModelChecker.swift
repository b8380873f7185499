@testable import SDKEventBus

/// The reference model of what listeners may and must receive, checked as deliveries happen.
///
/// Every check is sound under any interleaving of the tasks that drive the bus:
///
/// - Delivery runs on the main actor, one fire at a time: a fire's callbacks form one contiguous
///   block, in ascending subscription order, and no fire reappears after its block ended.
/// - A listener receives each producer's fires in the order that producer fired them, each at most
///   once (sequence numbers strictly increase).
/// - A listener never receives a fire its own task made before subscribing it (program order puts
///   the fire before the subscription in the bus's order).
/// - A one-shot listener is called at most once.
/// - A listener ended on the main actor (cancelled there, or its owner released there) is never
///   called again: both are atomic with respect to delivery.
/// - After its task's `flush`, a listener that is still subscribed has received every fire of its
///   event that its task made after subscribing it.
@MainActor
final class BusModelChecker {
    /// A fire's identity: its event, its producer task, and its sequence number among that task's
    /// fires of the same event.
    struct FireKey: Hashable {
        var event: SystemEvent
        var producer: Int
        var sequence: Int
    }

    /// What the model knows about one listener.
    struct ListenerState {
        let owner: Int
        let event: SystemEvent
        let isOnce: Bool
        /// The owner task's next sequence number for `event` when the listener subscribed.
        let firstOwnSequence: Int
        var ended = false
        var calls = 0
        var ownReceived = 0
        var lastSequence: [Int: Int] = [:]
    }

    private(set) var violations: [String] = []
    private var listeners: [Int: ListenerState] = [:]
    /// The bus's listener id of each model listener, known once its subscription returned.
    private var listenerIDs: [Int: UInt64] = [:]
    private var currentFire: FireKey?
    private var currentFireLastListener: UInt64 = 0
    private var finishedFires: Set<FireKey> = []
    private(set) var deliveries = 0

    func record(_ violation: String) {
        if violations.count < 20 { violations.append(violation) }
    }

    func register(_ model: Int, _ state: ListenerState) {
        listeners[model] = state
    }

    /// Records the bus's id of a model listener, for the subscription-order check.
    func setListenerID(_ id: UInt64, for model: Int) {
        listenerIDs[model] = id
    }

    /// Marks a listener ended by an operation atomic with delivery (on the main actor).
    func endOnMain(_ model: Int) {
        listeners[model]?.ended = true
    }

    /// Forgets a listener whose end raced with delivery: it is no longer checked for completeness.
    func endOffMain(_ model: Int) {
        listeners[model] = nil
        listenerIDs[model] = nil
    }

    /// Checks one callback.
    func delivered(_ key: FireKey, to model: Int) {
        deliveries += 1
        if key != currentFire {
            if let currentFire { finishedFires.insert(currentFire) }
            if finishedFires.contains(key) {
                record("fire \(key) delivered again after other fires: not one contiguous block")
            }
            currentFire = key
            currentFireLastListener = 0
        }
        // A callback can run before its subscription's id is recorded; it skips this one check.
        if let listenerID = listenerIDs[model] {
            if currentFireLastListener != 0, listenerID <= currentFireLastListener {
                record(
                    "fire \(key): listener \(listenerID) called after \(currentFireLastListener), out of subscription order"
                )
            }
            currentFireLastListener = listenerID
        }

        guard var state = listeners[model] else { return }
        defer { listeners[model] = state }
        if state.ended { record("listener \(model) called after it ended (fire \(key))") }
        state.calls += 1
        if state.isOnce, state.calls > 1 { record("one-shot listener \(model) called \(state.calls) times") }
        if let last = state.lastSequence[key.producer], key.sequence <= last {
            record("listener \(model) got fire \(key) after sequence \(last) of the same producer")
        }
        state.lastSequence[key.producer] = key.sequence
        if key.producer == state.owner {
            if key.sequence < state.firstOwnSequence {
                record("listener \(model) got fire \(key), fired before it subscribed")
            }
            state.ownReceived += 1
        }
    }

    /// Checks completeness after `owner`'s flush: `nextSequence` is its next sequence per event.
    func checkCompleteness(owner: Int, nextSequence: [SystemEvent: Int], live: Set<Int>) {
        for model in live {
            guard let state = listeners[model], !state.isOnce, !state.ended, state.owner == owner else { continue }
            let expected = (nextSequence[state.event] ?? 0) - state.firstOwnSequence
            if state.ownReceived != expected {
                record("listener \(model) received \(state.ownReceived) of its task's \(expected) fires before flush")
            }
        }
    }
}
