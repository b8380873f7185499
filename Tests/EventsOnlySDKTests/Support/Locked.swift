import Foundation

/// A value that callbacks and uploaders on any thread record into: the core's testing part records
/// a bus's events (`EventRecorder`), not what a test's own callbacks and uploaders see.
// @unchecked: `stored` is read and written only under `lock`.
final class Locked<Value: Sendable>: @unchecked Sendable {
    private let lock = NSLock()
    private var stored: Value

    init(_ value: Value) {
        stored = value
    }

    /// The value now.
    var value: Value {
        get { withLock { $0 } }
        set { withLock { $0 = newValue } }
    }

    func withLock<Result>(_ body: (inout Value) -> Result) -> Result {
        lock.lock()
        defer { lock.unlock() }
        return body(&stored)
    }

    func append<Element>(_ element: Element) where Value == [Element] {
        withLock { $0.append(element) }
    }
}
