@testable import SDKEventBus
@testable import SDKEventBusConfig
@testable import SDKEventBusCore
@testable import SDKEventBusWire

/// A thread-safe counter for tests that count resumes or calls across tasks.
final class Counter: Sendable {
    private let value = LockedValue(0)

    var count: Int { value.withLock { $0 } }

    func increment() {
        value.withLock { $0 += 1 }
    }
}
