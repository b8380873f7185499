import Foundation
import Testing

@testable import SDKEventBus
@testable import SDKEventBusAppEvents
@testable import SDKEventBusCore

/// One rule, on every bus, for the actor an isolated subscription captures: weakly.
///
/// The bus never keeps the actor alive, and a callback whose actor is gone calls nothing and ends
/// its subscription, whatever reaches it.
///
/// The engine calls an isolated callback only in a job on its actor, which holds the actor; the
/// rule keeps the callback safe without relying on that. The tests call the callback the bus
/// stored directly, after the actor is gone, as a pass that reached it then would.
@Suite struct IsolatedActorCaptureTests {
    struct Ping: AppEvent {
        let number: Int
    }

    actor Listener {}

    /// The callback the bus stored for the live subscription `token`: a copy, which retains it.
    static func storedCallback(of token: EventSubscription, in storage: BusStorage) -> ErasedCallback? {
        storage.state.withLock { $0.registry.entry(of: token)?.entry.pointee.callback }
    }

    @Test func theAppBusDoesNotKeepAnActorWithALiveSubscriptionAlive() async {
        let bus = AppEventBus()
        var listener: Listener? = Listener()
        weak let watched = listener
        let calls = Counter()
        bus.on(Ping.self, delivery: .isolated(to: listener!)) { _, _ in calls.increment() }
        listener = nil
        #expect(watched == nil, "the bus holds the actor weakly")
        await bus.publishAndWait(Ping(number: 1))
        #expect(calls.count == 0)
        #expect(bus.listenerCount(for: Ping.self) == 0)
    }

    @Test func theCatalogBusDoesNotKeepAnActorWithALiveSubscriptionAlive() async {
        let (bus, emitter) = EventBus.makeBus()
        var listener: Listener? = Listener()
        weak let watched = listener
        let calls = Counter()
        bus.on(.conversion, delivery: .isolated(to: listener!)) { _, _ in calls.increment() }
        listener = nil
        #expect(watched == nil, "the bus holds the actor weakly")
        emitter.fire(.conversion(ConversionPayload(goalId: "g", visitorId: "v")))
        await bus.flush()
        #expect(calls.count == 0)
        #expect(bus.listenerCount(for: .conversion) == 0)
    }

    @Test func anAppBusCallbackReachedAfterItsActorIsGoneCallsNothingAndEndsItsSubscription() async throws {
        let bus = AppEventBus()
        var listener: Listener? = Listener()
        weak let watched = listener
        let calls = Counter()
        let token = bus.on(Ping.self, delivery: .isolated(to: listener!)) { _, _ in calls.increment() }
        let callback = try #require(Self.storedCallback(of: token, in: bus.storage))
        listener = nil
        #expect(watched == nil)
        let box: AppEventBox = TypedAppEventBox(Ping(number: 1), date: nil, source: nil, fileID: #fileID, line: #line)
        withUnsafePointer(to: box) { callback.function(UnsafeRawPointer($0)) }
        #expect(calls.count == 0, "the callback of an actor that is gone ran")
        #expect(Self.storedCallback(of: token, in: bus.storage) == nil, "the subscription ended")
    }

    @Test func aCatalogBusCallbackReachedAfterItsActorIsGoneCallsNothingAndEndsItsSubscription() async throws {
        let (bus, _) = EventBus.makeBus()
        var listener: Listener? = Listener()
        weak let watched = listener
        let calls = Counter()
        let token = bus.on(.conversion, delivery: .isolated(to: listener!)) { _, _ in calls.increment() }
        let callback = try #require(Self.storedCallback(of: token, in: bus.storage))
        listener = nil
        #expect(watched == nil)
        let payload = EventPayloadValue.conversion(ConversionPayload(goalId: "g", visitorId: "v"))
        withUnsafePointer(to: payload) { callback.function(UnsafeRawPointer($0)) }
        #expect(calls.count == 0, "the callback of an actor that is gone ran")
        #expect(Self.storedCallback(of: token, in: bus.storage) == nil, "the subscription ended")
    }
}
