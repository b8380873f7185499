import Foundation

/// The floor for readiness: bare continuations in a locked array, resumed in a loop.
final class BareWaiters: @unchecked Sendable {
    // @unchecked: `waiters` is only touched while holding `lock`.
    private let lock = NSLock()
    private var waiters: [CheckedContinuation<Void, Never>] = []

    var count: Int { lock.withLock { waiters.count } }

    func wait() async {
        await withCheckedContinuation { continuation in
            lock.withLock { waiters.append(continuation) }
        }
    }

    func resumeAll() {
        let all = lock.withLock {
            defer { waiters = [] }
            return waiters
        }
        for waiter in all { waiter.resume() }
    }
}
