@testable import SDKEventBus
@testable import SDKEventBusConfig
@testable import SDKEventBusCore
@testable import SDKEventBusWire

/// The reference model of what listeners may and must receive, checked as deliveries happen, on
/// whatever thread they happen.
///
/// Every check is sound under any interleaving of the tasks and threads that drive the bus:
///
/// - A lane (the main actor, the immediate lane, one actor) runs one pass at a time: a fire's
///   callbacks in one lane form one contiguous block, in ascending subscription order, and no fire
///   reappears in that lane after its block ended.
/// - A listener receives each producer's fires in the order that producer fired them, each at most
///   once (sequence numbers strictly increase).
/// - A listener never receives a fire its own task made before subscribing it (program order puts
///   the fire before the subscription in the bus's order).
/// - A one-shot listener is called at most once.
/// - Once `off` returns, from any task, the listener is not being called and is never called
///   again. The same holds from the moment it is cancelled on the executor that delivers to it, or
///   its owner is released there.
/// - A listener cancelled synchronously on another thread may still be called once by a pass that
///   had already reached it, and never after its task's next `flush` returns.
/// - After its task's `flush`, a listener that is still subscribed has received every fire of its
///   event that its task made after subscribing it.
final class BusModelChecker: Sendable {
    /// A fire's identity: its event, its producer task, and its sequence number among that task's
    /// fires of the same event.
    struct FireKey: Hashable, Sendable {
        var event: SystemEvent
        var producer: Int
        var sequence: Int
    }

    /// Where a listener's callbacks run.
    enum Lane: Hashable, CustomStringConvertible {
        case mainActor
        case immediate
        case actor(Int)

        var description: String {
            switch self {
            case .mainActor: "main actor"
            case .immediate: "immediate"
            case .actor(let index): "actor \(index)"
            }
        }
    }

    /// How a listener's subscription ended, as far as the model knows.
    enum Ending {
        /// Exactly, by the named operation: no callback may begin or be running from now on.
        case exact(String)
        /// By `cancel` on another thread: at most one more call, none after the task's next flush.
        case cancelledElsewhere(callsSince: Int)
    }

    /// What the model knows about one listener.
    struct ListenerState {
        let owner: Int
        let event: SystemEvent
        let lane: Lane
        let isOnce: Bool
        /// The owner task's next sequence number for `event` when the listener subscribed.
        let firstOwnSequence: Int
        var ending: Ending?
        var calls = 0
        var running = 0
        var ownReceived = 0
        var lastSequence: [Int: Int] = [:]
    }

    private struct LanePass {
        var currentFire: FireKey?
        var lastListener: UInt64 = 0
        var finishedFires: Set<FireKey> = []
    }

    private struct State {
        var violations: [String] = []
        var listeners: [Int: ListenerState] = [:]
        /// The bus's listener id of each model listener, known once its subscription returned.
        var listenerIDs: [Int: UInt64] = [:]
        var passes: [Lane: LanePass] = [:]
        /// Listeners cancelled on another thread and not yet made exact by their owner's flush,
        /// by owner task: a flush visits only these, not every listener ever registered.
        var cancelledElsewhere: [Int: [Int]] = [:]
        var deliveries = 0

        mutating func record(_ violation: String) {
            if violations.count < 20 { violations.append(violation) }
        }
    }

    private let state = LockedValue(State())

    var violations: [String] { state.withLock { $0.violations } }
    var deliveries: Int { state.withLock { $0.deliveries } }

    func register(_ model: Int, _ listener: ListenerState) {
        state.withLock { $0.listeners[model] = listener }
    }

    /// Records the bus's id of a model listener, for the subscription-order check.
    func setListenerID(_ id: UInt64, for model: Int) {
        state.withLock { $0.listenerIDs[model] = id }
    }

    // MARK: Endings

    /// `off` returned, or the listener was cancelled (or its owner released) on the executor that
    /// delivers to it: nothing may run from now on.
    func endedExactly(_ model: Int, by operation: String) {
        state.withLock { state in
            guard var listener = state.listeners[model] else { return }
            if listener.running > 0 {
                state.record("listener \(model) (\(listener.lane)) was still running when \(operation) returned")
            }
            listener.ending = .exact(operation)
            state.listeners[model] = listener
        }
    }

    /// The listener was cancelled synchronously on another thread.
    func cancelledElsewhere(_ model: Int) {
        state.withLock { state in
            guard let listener = state.listeners[model], listener.ending == nil else { return }
            state.listeners[model]?.ending = .cancelledElsewhere(callsSince: 0)
            state.cancelledElsewhere[listener.owner, default: []].append(model)
        }
    }

    /// `owner`'s flush returned: its cancellations on other threads are now exact.
    func flushed(by owner: Int) {
        state.withLock { state in
            for model in state.cancelledElsewhere.removeValue(forKey: owner) ?? [] {
                if case .cancelledElsewhere = state.listeners[model]?.ending {
                    state.listeners[model]?.ending = .exact("cancel elsewhere, then flush")
                }
            }
        }
    }

    // MARK: Deliveries

    /// Checks one callback as it begins; pair it with ``finished(_:)``.
    func delivering(_ key: FireKey, to model: Int) {
        state.withLock { state in
            state.deliveries += 1
            guard var listener = state.listeners[model] else { return }
            defer { state.listeners[model] = listener }
            checkPass(&state, key, model: model, lane: listener.lane)

            switch listener.ending {
            case .exact(let operation):
                state.record("listener \(model) (\(listener.lane)) called after \(operation) (fire \(key))")
            case .cancelledElsewhere(let callsSince):
                if callsSince >= 1 {
                    state.record("listener \(model) (\(listener.lane)) called \(callsSince + 1) times after cancel")
                }
                listener.ending = .cancelledElsewhere(callsSince: callsSince + 1)
            case nil:
                break
            }
            listener.running += 1
            listener.calls += 1
            if listener.isOnce, listener.calls > 1 {
                state.record("one-shot listener \(model) called \(listener.calls) times")
            }
            if let last = listener.lastSequence[key.producer], key.sequence <= last {
                state.record("listener \(model) got fire \(key) after sequence \(last) of the same producer")
            }
            listener.lastSequence[key.producer] = key.sequence
            if key.producer == listener.owner {
                if key.sequence < listener.firstOwnSequence {
                    state.record("listener \(model) got fire \(key), fired before it subscribed")
                }
                listener.ownReceived += 1
            }
        }
    }

    /// The callback that ``delivering(_:to:)`` checked has returned.
    func finished(_ model: Int) {
        state.withLock { $0.listeners[model]?.running -= 1 }
    }

    /// A fire's callbacks in one lane form one contiguous block in subscription order.
    private func checkPass(_ state: inout State, _ key: FireKey, model: Int, lane: Lane) {
        var pass = state.passes[lane] ?? LanePass()
        defer { state.passes[lane] = pass }
        if key != pass.currentFire {
            if let current = pass.currentFire { pass.finishedFires.insert(current) }
            if pass.finishedFires.contains(key) {
                state.record("fire \(key) delivered again in the \(lane) lane after other fires: not one block")
            }
            pass.currentFire = key
            pass.lastListener = 0
        }
        // A callback can run before its subscription's id is recorded; it skips this one check.
        guard let listenerID = state.listenerIDs[model] else { return }
        if pass.lastListener != 0, listenerID <= pass.lastListener {
            state.record(
                "fire \(key) in the \(lane) lane: listener \(listenerID) called after \(pass.lastListener), "
                    + "out of subscription order")
        }
        pass.lastListener = listenerID
    }

    /// Checks completeness after `owner`'s flush: `nextSequence` is its next sequence per event.
    func checkCompleteness(owner: Int, nextSequence: [SystemEvent: Int], live: Set<Int>) {
        state.withLock { state in
            for model in live {
                guard let listener = state.listeners[model], !listener.isOnce, listener.ending == nil,
                    listener.owner == owner
                else { continue }
                let expected = (nextSequence[listener.event] ?? 0) - listener.firstOwnSequence
                if listener.ownReceived != expected {
                    state.record(
                        "listener \(model) (\(listener.lane)) received \(listener.ownReceived) of its task's "
                            + "\(expected) fires before flush")
                }
            }
        }
    }
}

extension BusModelChecker.Ending: Equatable {}
