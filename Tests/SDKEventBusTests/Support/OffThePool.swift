import Foundation

/// Runs a blocking `body` on a thread of its own and waits for it without blocking.
///
/// Blocking waits (semaphores, blocking sockets, `DispatchGroup.wait`) must never run on the
/// cooperative thread pool, which has as many threads as cores (two here): two blocked tests would
/// starve every other test of the parallel suite. `DispatchQueue.global()` is no escape on Linux,
/// where the pool's jobs run on Dispatch's global threads, so this starts a `Thread`.
func offThePool<T: Sendable, E: Error>(_ body: @escaping @Sendable () throws(E) -> T) async throws(E) -> T {
    let result = await withCheckedContinuation { (continuation: CheckedContinuation<Result<T, E>, Never>) in
        Thread { continuation.resume(returning: Result { () throws(E) -> T in try body() }) }.start()
    }
    return try result.get()
}

/// Starts `body` on a thread of its own and returns at once.
func onAThreadOfItsOwn(_ body: @escaping @Sendable () -> Void) {
    Thread { body() }.start()
}
