@testable import SDKEventBus

/// A clock that moves only when a test advances it, so that backoff, refresh and timeouts run
/// instantly and deterministically.
///
/// ```swift
/// let delay = await clock.nextSleep()   // waits until the code under test sleeps
/// clock.advance(by: delay)              // wakes it
/// ```
final class ManualClock: Clock, Sendable {
    struct Instant: InstantProtocol {
        var offset: Duration

        func advanced(by duration: Duration) -> Instant { Instant(offset: offset + duration) }
        func duration(to other: Instant) -> Duration { other.offset - offset }
        static func < (lhs: Instant, rhs: Instant) -> Bool { lhs.offset < rhs.offset }
    }

    private struct Sleeper {
        let deadline: Instant
        let continuation: CheckedContinuation<Void, any Error>
    }

    private struct State {
        var now = Instant(offset: .zero)
        var sleepers: [UInt64: Sleeper] = [:]
        var cancelledEarly: Set<UInt64> = []
        var nextID: UInt64 = 0
        var sleepWatchers: [CheckedContinuation<Void, Never>] = []
        /// Every duration slept for, in order.
        var history: [Duration] = []
    }

    private let state = LockedValue(State())

    var now: Instant { state.withLock { $0.now } }
    var minimumResolution: Duration { .zero }

    /// How many tasks are sleeping now.
    var sleeperCount: Int { state.withLock { $0.sleepers.count } }

    /// Every duration slept for so far, in order.
    var history: [Duration] { state.withLock { $0.history } }

    func sleep(until deadline: Instant, tolerance: Duration? = nil) async throws {
        try Task.checkCancellation()
        let id = state.withLock { state in
            defer { state.nextID += 1 }
            return state.nextID
        }
        try await withTaskCancellationHandler {
            try await withCheckedThrowingContinuation { (continuation: CheckedContinuation<Void, any Error>) in
                let (resume, watchers) = state.withLock {
                    state -> (Result<Void, any Error>?, [CheckedContinuation<Void, Never>]) in
                    if state.cancelledEarly.remove(id) != nil { return (.failure(CancellationError()), []) }
                    state.history.append(state.now.duration(to: deadline))
                    if deadline <= state.now { return (.success(()), []) }
                    state.sleepers[id] = Sleeper(deadline: deadline, continuation: continuation)
                    defer { state.sleepWatchers = [] }
                    return (nil, state.sleepWatchers)
                }
                if let resume { continuation.resume(with: resume) }
                for watcher in watchers { watcher.resume() }
            }
        } onCancel: {
            let sleeper = state.withLock { state in
                guard let sleeper = state.sleepers.removeValue(forKey: id) else {
                    state.cancelledEarly.insert(id)
                    return Sleeper?.none
                }
                return sleeper
            }
            sleeper?.continuation.resume(throwing: CancellationError())
        }
    }

    /// Moves time forward and wakes every sleeper whose deadline has come, earliest first.
    func advance(by duration: Duration) {
        let due = state.withLock { state in
            state.now = state.now.advanced(by: duration)
            let now = state.now
            let due = state.sleepers.filter { $0.value.deadline <= now }.sorted {
                $0.value.deadline < $1.value.deadline
            }
            for (id, _) in due { state.sleepers[id] = nil }
            return due.map(\.value.continuation)
        }
        for continuation in due { continuation.resume() }
    }

    /// Waits until at least one task sleeps, and returns how long until the earliest wakes.
    func nextSleep() async -> Duration {
        while true {
            let earliest = state.withLock { state in
                state.sleepers.values.map { state.now.duration(to: $0.deadline) }.min()
            }
            if let earliest { return earliest }
            await withCheckedContinuation { (watcher: CheckedContinuation<Void, Never>) in
                let resumeNow = state.withLock { state in
                    guard state.sleepers.isEmpty else { return true }
                    state.sleepWatchers.append(watcher)
                    return false
                }
                if resumeNow { watcher.resume() }
            }
        }
    }

    /// Advances to the earliest sleeper's deadline, once one is sleeping.
    ///
    /// - Returns: How far time moved.
    @discardableResult
    func advanceToNextSleep() async -> Duration {
        let delay = await nextSleep()
        advance(by: delay)
        return delay
    }
}
