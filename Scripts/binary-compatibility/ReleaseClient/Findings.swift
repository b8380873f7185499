// What the release client records: each check it made, and each that failed.

import Foundation

/// The checks of one run: every promise checked, and the ones that did not hold.
final class Findings: @unchecked Sendable {
    // @unchecked: `checked` and `failures` are only reached under `lock`.
    private let lock = NSLock()
    private var checked = 0
    private var failures: [String] = []

    /// Records a check of `what`, a failure when `condition` is false.
    func check(_ condition: Bool, _ what: @autoclosure () -> String) {
        let failure = condition ? nil : what()
        lock.withLock {
            checked += 1
            if let failure { failures.append(failure) }
        }
    }

    /// Records a failure that no condition describes (an error thrown where none was expected).
    func fail(_ what: String) { check(false, what) }

    /// How many checks were made, and the failures in the order they were found.
    var result: (checked: Int, failures: [String]) { lock.withLock { (checked, failures) } }
}

/// Values appended by callbacks on any thread, read after the bus was awaited.
final class Recorder<Value: Sendable>: @unchecked Sendable {
    // @unchecked: `items` is only reached under `lock`.
    private let lock = NSLock()
    private var items: [Value] = []

    /// Appends `value`.
    func append(_ value: Value) { lock.withLock { items.append(value) } }

    /// Everything appended so far, in order.
    var values: [Value] { lock.withLock { items } }
}

/// A one-shot signal a callback gives and an async caller awaits, without polling.
final class Signal: @unchecked Sendable {
    // @unchecked: `given` and `waiters` are only reached under `lock`.
    private let lock = NSLock()
    private var given = false
    private var waiters: [CheckedContinuation<Void, Never>] = []

    /// Gives the signal: every waiter resumes, and later waits return at once.
    func give() {
        let resumed: [CheckedContinuation<Void, Never>] = lock.withLock {
            if given { return [] }
            given = true
            defer { waiters = [] }
            return waiters
        }
        for waiter in resumed { waiter.resume() }
    }

    /// Returns once the signal is given.
    func wait() async {
        await withCheckedContinuation { (continuation: CheckedContinuation<Void, Never>) in
            let resumeNow: Bool = lock.withLock {
                if given { return true }
                waiters.append(continuation)
                return false
            }
            if resumeNow { continuation.resume() }
        }
    }
}
