import Testing

@testable import SDKEventBus

/// Makes a callback that does nothing.
private let ignore: @Sendable (EventListenerToken) -> ListenerRegistry.Callback = { _ in { _ in } }

extension ListenerRegistry {
    /// Subscribes a callback that does nothing.
    fileprivate mutating func add(_ event: SystemEvent, lifetime: SubscriptionLifetime? = nil) -> EventListenerToken {
        subscribe(event, lifetime: lifetime, makeCallback: ignore).token
    }

    /// The ids of the live entries of `event`'s bucket, in order.
    fileprivate func liveIDs(_ event: SystemEvent) -> [UInt64] {
        buckets[event.ordinal].entries.filter { !$0.isHole }.map(\.id)
    }

    fileprivate func isLive(_ token: EventListenerToken) -> Bool {
        callback(of: token) != nil
    }
}

@Suite struct ListenerRegistryTests {
    @Test func subscriptionsGetIncreasingIdsInSubscriptionOrder() {
        var registry = ListenerRegistry(busID: 1)
        let ids = (0..<5).map { _ in registry.add(.ready).listenerID }
        #expect(ids == [0, 1, 2, 3, 4])
        #expect(registry.nextID == 5)
        #expect(registry.liveIDs(.ready) == ids)
    }

    @Test func eachEventHasItsOwnBucket() {
        var registry = ListenerRegistry(busID: 1)
        _ = registry.add(.ready)
        _ = registry.add(.bucketing)
        _ = registry.add(.bucketing)
        #expect(registry.count(for: .ready) == 1)
        #expect(registry.count(for: .bucketing) == 2)
        #expect(registry.count(for: .conversion) == 0)
    }

    @Test func unsubscribeRemovesTheSubscription() {
        var registry = ListenerRegistry(busID: 1)
        let token = registry.add(.ready)
        #expect(registry.unsubscribe(token) != nil)
        #expect(!registry.isLive(token))
        #expect(registry.count(for: .ready) == 0)
    }

    @Test func unsubscribeIsIdempotent() {
        var registry = ListenerRegistry(busID: 1)
        let token = registry.add(.ready)
        #expect(registry.unsubscribe(token) != nil)
        #expect(registry.unsubscribe(token) == nil)
    }

    @Test func tokenOfAnEndedSubscriptionDoesNotEndTheOneReusingItsSlot() {
        var registry = ListenerRegistry(busID: 1)
        let stale = registry.add(.ready)
        _ = registry.unsubscribe(stale)
        let fresh = registry.add(.ready)
        #expect(fresh.slot == stale.slot)
        #expect(registry.unsubscribe(stale) == nil)
        #expect(registry.isLive(fresh))
        #expect(registry.count(for: .ready) == 1)
    }

    @Test func tokenFromAnotherBusChangesNothing() {
        var mine = ListenerRegistry(busID: 1)
        var theirs = ListenerRegistry(busID: 2)
        let local = mine.add(.ready)
        let foreign = theirs.add(.ready)
        #expect(foreign.slot == 0 && foreign.listenerID == 0, "same slot and id as the local listener")
        #expect(mine.unsubscribe(foreign) == nil)
        #expect(mine.isLive(local))
    }

    @Test func compactionKeepsSubscriptionOrderAndTokensValid() {
        var registry = ListenerRegistry(busID: 1)
        let tokens = (0..<200).map { _ in registry.add(.conversion) }
        for (index, token) in tokens.enumerated() where index % 3 != 0 {
            _ = registry.unsubscribe(token)
        }
        let survivors = tokens.enumerated().filter { $0.offset % 3 == 0 }.map(\.element)
        let bucket = registry.buckets[SystemEvent.conversion.ordinal]
        #expect(bucket.entries.count < 2 * survivors.count + ListenerRegistry.compactionThreshold, "holes compacted")
        #expect(registry.liveIDs(.conversion) == survivors.map(\.listenerID), "order kept")
        for survivor in survivors {
            #expect(registry.unsubscribe(survivor) != nil, "a token still finds its entry after compaction")
        }
        #expect(registry.count(for: .conversion) == 0)
    }

    @Test func storageReturnsToBaselineAfterSubscriptionsEnd() {
        var registry = ListenerRegistry(busID: 1)
        let tokens = (0..<10_000).map { registry.add(SystemEvent.allCases[$0 % 10]) }
        for token in tokens.shuffled() {
            _ = registry.unsubscribe(token)
        }
        #expect(registry.totalCount == 0)
        #expect(registry.storageFootprint == 0)
    }

    @Test func closeRemovesEverySubscriptionAndRefusesNewOnes() {
        var registry = ListenerRegistry(busID: 1)
        let tokens = (0..<5).map { _ in registry.add(.segments) }
        #expect(registry.close().count == 5)
        #expect(tokens.allSatisfy { !registry.isLive($0) })
        #expect(registry.count(for: .segments) == 0)
        let late = registry.subscribe(.segments, makeCallback: ignore)
        #expect(!late.isLive)
        #expect(registry.unsubscribe(late.token) == nil)
    }

    @Test func stickyEventIsReplayedToALateSubscription() {
        var registry = ListenerRegistry(busID: 1)
        #expect(registry.subscribe(.ready, makeCallback: ignore).replay == nil, "nothing fired yet")
        registry.recordFired(.ready(ReadyPayload()))
        #expect(registry.subscribe(.ready, makeCallback: ignore).replay == .ready(ReadyPayload()))
    }

    @Test func latestConfigUpdateIsReplayedOnlyOnRequest() {
        var registry = ListenerRegistry(busID: 1)
        let update = EventPayloadValue.configUpdated(ConfigUpdatedPayload(snapshot: nil))
        registry.recordFired(update)
        #expect(registry.subscribe(.configUpdated, makeCallback: ignore).replay == nil)
        #expect(registry.subscribe(.configUpdated, replayLatest: true, makeCallback: ignore).replay == update)
    }

    @Test func eventsWithoutReplayAreNeverReplayed() {
        var registry = ListenerRegistry(busID: 1)
        registry.recordFired(SamplePayloads.numbered(1))
        #expect(registry.subscribe(.apiQueueReleased, replayLatest: true, makeCallback: ignore).replay == nil)
    }

    @Test func subscriptionsOfADeadOwnerAreSweptAndOthersKept() {
        var registry = ListenerRegistry(busID: 1)
        var owner: Canary? = Canary()
        let bound = registry.add(.ready, lifetime: SubscriptionLifetime(owner: owner))
        let free = registry.add(.ready)
        #expect(registry.sweepDeadOwners().removed.isEmpty)
        owner = nil
        #expect(registry.sweepDeadOwners().removed.count == 1)
        #expect(!registry.isLive(bound))
        #expect(registry.isLive(free))
        #expect(registry.count(for: .ready) == 1)
    }

    @Test func unsubscribeAllOfAnOwnerLeavesOtherSubscriptions() {
        var registry = ListenerRegistry(busID: 1)
        let owner = Canary()
        let other = Canary()
        for event in [SystemEvent.ready, .bucketing, .conversion] {
            _ = registry.add(event, lifetime: SubscriptionLifetime(owner: owner))
        }
        _ = registry.add(.ready, lifetime: SubscriptionLifetime(owner: other))
        #expect(registry.unsubscribeAll(ownedBy: ObjectIdentifier(owner)).count == 3)
        #expect(registry.totalCount == 1)
    }

    @Test func resumeIndexFindsTheFirstListenerFromAnIdSkippingHoles() {
        var registry = ListenerRegistry(busID: 1)
        let tokens = (0..<10).map { _ in registry.add(.ready) }
        for index in [0, 3, 4, 5, 9] { _ = registry.unsubscribe(tokens[index]) }
        let entries = registry.buckets[SystemEvent.ready.ordinal].entries
        let live = registry.liveIDs(.ready)
        #expect(live == [1, 2, 6, 7, 8])
        entries.withUnsafeBufferPointer { buffer in
            for id in UInt64(0)...10 {
                let index = ListenerSnapshot.resumeIndex(in: buffer, from: id)
                let expected = live.first { $0 >= id }
                #expect(entries[index...].first { !$0.isHole }?.id == expected, "from \(id)")
                #expect(entries[..<index].allSatisfy { $0.isHole || $0.id < id })
            }
        }
    }
}
