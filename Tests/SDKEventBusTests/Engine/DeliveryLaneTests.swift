import Testing

@testable import SDKEventBusCore

/// A delivery lane is read and written on every fire: it holds what delivery needs, and nothing
/// that only tests use.
@Suite struct DeliveryLaneTests {
    @Test func aLaneHoldsNoStateForTestHooks() {
        let lane = DeliveryLane(name: "immediate", layout: .of(Int.self))
        let fields = Mirror(reflecting: lane).children.compactMap(\.label)
        #expect(fields.contains("offWaiters"), "the lane's own waiters are in it")
        #expect(fields.filter { $0.lowercased().contains("watcher") } == [])
    }
}
