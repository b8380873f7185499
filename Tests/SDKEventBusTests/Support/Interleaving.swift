/// Yields `count` times, so that a randomized race lands at a different point of the other tasks'
/// work from one round to the next.
///
/// It varies an interleaving; it never waits for anything. A test that must wait for another task
/// awaits a hook instead: `TestClock.waitForSleepers(_:)`, `ConfigStore.waitForReadyWaiters(_:)`,
/// `MockConfigFetchService.waitForFetches(_:)`, `LoopbackHTTPServer.waitForRequests(_:)`, the bus's
/// `flush()` or an `EventRecorder`.
func varyInterleaving(yielding count: Int) async {
    for _ in 0..<count { await Task.yield() }
}
