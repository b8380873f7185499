import Testing

@testable import SDKEventBus

@Suite struct ListenerRegistryTests {
    private let callback: @MainActor @Sendable (EventPayloadValue) -> Void = { _ in }

    @Test func subscriptionsGetIncreasingIdsInSubscriptionOrder() {
        var registry = ListenerRegistry(busID: 1)
        let ids = (0..<5).map { _ in registry.subscribe(.ready, callback: callback).0.id }
        #expect(ids == [0, 1, 2, 3, 4])
        #expect(registry.nextID == 5)
        #expect(registry.buckets[SystemEvent.ready.ordinal].entries.compactMap { $0?.id } == ids)
    }

    @Test func eachEventHasItsOwnBucket() {
        var registry = ListenerRegistry(busID: 1)
        _ = registry.subscribe(.ready, callback: callback)
        _ = registry.subscribe(.bucketing, callback: callback)
        _ = registry.subscribe(.bucketing, callback: callback)
        #expect(registry.count(for: .ready) == 1)
        #expect(registry.count(for: .bucketing) == 2)
        #expect(registry.count(for: .conversion) == 0)
    }

    @Test func unsubscribeRemovesAndCancelsTheListener() {
        var registry = ListenerRegistry(busID: 1)
        let (listener, token) = registry.subscribe(.ready, callback: callback)
        let removed = registry.unsubscribe(token)
        #expect(removed?.isSame(as: listener) == true)
        #expect(listener.isCancelled)
        #expect(registry.count(for: .ready) == 0)
    }

    @Test func unsubscribeIsIdempotent() {
        var registry = ListenerRegistry(busID: 1)
        let (_, token) = registry.subscribe(.ready, callback: callback)
        #expect(registry.unsubscribe(token) != nil)
        #expect(registry.unsubscribe(token) == nil)
    }

    @Test func tokenOfAnEndedSubscriptionDoesNotEndTheOneReusingItsSlot() {
        var registry = ListenerRegistry(busID: 1)
        let (_, stale) = registry.subscribe(.ready, callback: callback)
        _ = registry.unsubscribe(stale)
        let (reusing, fresh) = registry.subscribe(.ready, callback: callback)
        #expect(fresh.slot == stale.slot)
        #expect(registry.unsubscribe(stale) == nil)
        #expect(!reusing.isCancelled)
        #expect(registry.count(for: .ready) == 1)
    }

    @Test func tokenFromAnotherBusChangesNothing() {
        var mine = ListenerRegistry(busID: 1)
        var theirs = ListenerRegistry(busID: 2)
        let (listener, _) = mine.subscribe(.ready, callback: callback)
        let (_, foreign) = theirs.subscribe(.ready, callback: callback)
        #expect(foreign.slot == 0 && foreign.listenerID == 0, "same slot and id as the local listener")
        #expect(mine.unsubscribe(foreign) == nil)
        #expect(!listener.isCancelled)
    }

    @Test func compactionKeepsSubscriptionOrderAndTokensValid() {
        var registry = ListenerRegistry(busID: 1)
        let subscriptions = (0..<200).map { _ in registry.subscribe(.conversion, callback: callback) }
        for (index, subscription) in subscriptions.enumerated() where index % 3 != 0 {
            _ = registry.unsubscribe(subscription.1)
        }
        let survivors = subscriptions.enumerated().filter { $0.offset % 3 == 0 }.map(\.element)
        let bucket = registry.buckets[SystemEvent.conversion.ordinal]
        #expect(bucket.entries.count < 2 * survivors.count + ListenerRegistry.compactionThreshold, "holes compacted")
        #expect(bucket.entries.compactMap { $0?.id } == survivors.map(\.0.id), "order kept")
        for survivor in survivors {
            #expect(registry.unsubscribe(survivor.1) != nil, "a token still finds its listener after compaction")
        }
        #expect(registry.count(for: .conversion) == 0)
    }

    @Test func storageReturnsToBaselineAfterSubscriptionsEnd() {
        var registry = ListenerRegistry(busID: 1)
        let tokens = (0..<10_000).map { registry.subscribe(SystemEvent.allCases[$0 % 10], callback: callback).1 }
        for token in tokens.shuffled() {
            _ = registry.unsubscribe(token)
        }
        #expect(registry.totalCount == 0)
        #expect(registry.storageFootprint == 0)
    }

    @Test func removeAllCancelsEveryListener() {
        var registry = ListenerRegistry(busID: 1)
        let listeners = (0..<5).map { _ in registry.subscribe(.segments, callback: callback).0 }
        #expect(registry.removeAll().count == 5)
        #expect(listeners.allSatisfy { $0.isCancelled })
        #expect(registry.count(for: .segments) == 0)
    }
}
