import Foundation

/// What test callbacks record, from any thread or actor, in the order they ran; a test awaits a
/// count instead of sleeping.
final class CallLog<Element: Sendable>: @unchecked Sendable {
    // @unchecked: `items` and `waiters` are only touched under `lock`.
    private let lock = NSLock()
    private var storage: [Element] = []
    private var waiters: [(count: Int, continuation: CheckedContinuation<Void, Never>)] = []

    var items: [Element] { lock.withLock { storage } }
    var count: Int { lock.withLock { storage.count } }

    func append(_ item: Element) {
        let ready = lock.withLock {
            storage.append(item)
            let ready = waiters.filter { $0.count <= storage.count }
            waiters.removeAll { $0.count <= storage.count }
            return ready.map(\.continuation)
        }
        for waiter in ready { waiter.resume() }
    }

    /// Returns once at least `count` items have been recorded.
    func waitForCount(_ count: Int) async {
        await withCheckedContinuation { (continuation: CheckedContinuation<Void, Never>) in
            let now = lock.withLock {
                guard storage.count < count else { return true }
                waiters.append((count, continuation))
                return false
            }
            if now { continuation.resume() }
        }
    }
}
