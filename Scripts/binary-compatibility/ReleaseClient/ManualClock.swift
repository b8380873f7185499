// The client's own LifecycleClock: the protocol crosses the boundary as a binary SDK adopts it, and
// time moves only when the client says so.

import Foundation
import SDKEventBusConfig

/// A clock whose time advances only by `advance(to:)`, with its sleepers visible, so that the lifecycle
/// and a timed `ready()` can be driven without waiting.
final class ManualClock: LifecycleClock, @unchecked Sendable {
    // @unchecked: every stored property but `lock` is only reached under `lock`.
    private struct Sleeper {
        var deadline: TimeInterval
        var continuation: CheckedContinuation<Void, any Error>?
    }

    private let lock = NSLock()
    private var current: TimeInterval
    private var nextID: UInt64 = 0
    private var sleepers: [UInt64: Sleeper] = [:]
    private var cancelled: Set<UInt64> = []
    private var watchers:
        [(wanted: @Sendable (TimeInterval) -> Bool, continuation: CheckedContinuation<TimeInterval, Never>)] = []

    init(now: TimeInterval) { current = now }

    var now: TimeInterval { lock.withLock { current } }

    nonisolated(nonsending) func sleep(until deadline: TimeInterval) async throws {
        let id: UInt64 = lock.withLock {
            nextID += 1
            return nextID
        }
        try await withTaskCancellationHandler {
            try await withCheckedThrowingContinuation { (continuation: CheckedContinuation<Void, any Error>) in
                enum Outcome { case wait, resume, cancel }
                let (outcome, watcher): (Outcome, [CheckedContinuation<TimeInterval, Never>]) = lock.withLock {
                    if cancelled.remove(id) != nil { return (.cancel, []) }
                    if deadline <= current { return (.resume, []) }
                    sleepers[id] = Sleeper(deadline: deadline, continuation: continuation)
                    let (ready, waiting) = watchers.partitioned { $0.wanted(deadline) }
                    watchers = waiting
                    return (.wait, ready.map(\.continuation))
                }
                for continuation in watcher { continuation.resume(returning: deadline) }
                switch outcome {
                case .wait: break
                case .resume: continuation.resume()
                case .cancel: continuation.resume(throwing: CancellationError())
                }
            }
        } onCancel: {
            let continuation: CheckedContinuation<Void, any Error>?? = lock.withLock {
                guard let sleeper = sleepers.removeValue(forKey: id) else {
                    cancelled.insert(id)
                    return nil
                }
                return sleeper.continuation
            }
            if let continuation, let continuation { continuation.resume(throwing: CancellationError()) }
        }
    }

    /// Returns the deadline of a sleeper for which `wanted` is true, once one sleeps.
    func sleeper(where wanted: @escaping @Sendable (TimeInterval) -> Bool) async -> TimeInterval {
        await withCheckedContinuation { (continuation: CheckedContinuation<TimeInterval, Never>) in
            let found: TimeInterval? = lock.withLock {
                if let deadline = sleepers.values.map(\.deadline).filter(wanted).min() { return deadline }
                watchers.append((wanted, continuation))
                return nil
            }
            if let found { continuation.resume(returning: found) }
        }
    }

    /// Sets the time to `time` and wakes every sleeper whose deadline it reached.
    func advance(to time: TimeInterval) {
        let due: [CheckedContinuation<Void, any Error>] = lock.withLock {
            current = max(current, time)
            let ids = sleepers.filter { $0.value.deadline <= current }.map(\.key)
            return ids.compactMap { sleepers.removeValue(forKey: $0)?.continuation }
        }
        for continuation in due { continuation.resume() }
    }
}

extension Array {
    /// The elements for which `belongs` is true, and the others, each in order.
    fileprivate func partitioned(by belongs: (Element) -> Bool) -> (matching: [Element], rest: [Element]) {
        var matching: [Element] = []
        var rest: [Element] = []
        for element in self {
            if belongs(element) { matching.append(element) } else { rest.append(element) }
        }
        return (matching, rest)
    }
}
