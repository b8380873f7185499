import Testing

@testable import SDKEventBus
@testable import SDKEventBusConfig
@testable import SDKEventBusCore
@testable import SDKEventBusWire

extension ListenerRegistry {
    /// Subscribes a callback that does nothing, on the main lane.
    fileprivate mutating func add(
        _ event: Int,
        lane: Int = 0,
        lifetime: SubscriptionLifetime? = nil
    ) -> EventListenerToken {
        subscribe(
            event: event,
            lane: lane,
            lifetime: lifetime,
            token: { [busID] in EventListenerToken(busID: busID, listenerID: $0, slot: $1, issuer: nil) },
            makeCallback: { _ in .released }
        ).token
    }

    /// Ends a subscription the way the storage does when no pass runs: marks, releases, trims.
    @discardableResult
    fileprivate mutating func remove(_ token: EventListenerToken) -> Bool {
        guard let ended = end(token) else { return false }
        _ = ended.bucket.takeCallback(at: ended.position)
        ended.bucket.trimTrailingHoles()
        if ended.bucket.isDueForCompaction { compact(ended.bucket) }
        return true
    }

    /// The ids of the live entries of `event` in `lane`, in order.
    fileprivate func liveIDs(_ event: Int, lane: Int = 0) -> [UInt64] {
        guard let bucket = buckets.first(where: { $0.event == event && $0.lane == lane }) else { return [] }
        return (0..<bucket.count).map(bucket.entry(at:)).filter { ListenerEntry.isLive($0) }.map(\.pointee.id)
    }

    fileprivate func isLive(_ token: EventListenerToken) -> Bool {
        entry(of: token) != nil
    }
}

private let ready = 0
private let updated = 1
private let bucketing = 3

@Suite struct ListenerRegistryTests {
    @Test func anEntrysCallbackLiesWhereTakingItWithoutAnAccessToTheEntryLooksForIt() {
        #expect(MemoryLayout<ListenerEntry>.offset(of: \ListenerEntry.callback) == ListenerEntry.callbackOffset)
    }

    @Test func subscriptionsGetIncreasingIdsInSubscriptionOrder() {
        var registry = ListenerRegistry(busID: 1, eventCount: 10)
        let ids = (0..<5).map { _ in registry.add(ready).listenerID }
        #expect(ids == [0, 1, 2, 3, 4])
        #expect(registry.nextID == 5)
        #expect(registry.liveIDs(ready) == ids)
    }

    @Test func eachEventAndLaneHasItsOwnBucket() {
        var registry = ListenerRegistry(busID: 1, eventCount: 10)
        _ = registry.add(ready)
        _ = registry.add(bucketing)
        _ = registry.add(bucketing, lane: 1)
        #expect(registry.count(for: ready) == 1)
        #expect(registry.count(for: bucketing) == 2)
        #expect(registry.count(for: updated) == 0)
        #expect(registry.routes[bucketing].count == 2)
        #expect(registry.liveIDs(bucketing, lane: 1) == [2])
    }

    @Test func endingRemovesTheSubscription() {
        var registry = ListenerRegistry(busID: 1, eventCount: 10)
        let token = registry.add(ready)
        let removed = registry.remove(token)
        #expect(removed)
        #expect(!registry.isLive(token))
        #expect(registry.count(for: ready) == 0)
    }

    @Test func endingIsIdempotent() {
        var registry = ListenerRegistry(busID: 1, eventCount: 10)
        let token = registry.add(ready)
        let removed = registry.remove(token)
        #expect(removed)
        let removedAgain = registry.remove(token)
        #expect(!removedAgain)
    }

    @Test func tokenOfAnEndedSubscriptionDoesNotEndTheOneReusingItsSlot() {
        var registry = ListenerRegistry(busID: 1, eventCount: 10)
        let stale = registry.add(ready)
        _ = registry.add(ready)  // keeps the table from resetting
        registry.remove(stale)
        let fresh = registry.add(ready)
        #expect(fresh.slot == stale.slot)
        let endedStale = registry.remove(stale)
        #expect(!endedStale)
        #expect(registry.isLive(fresh))
    }

    @Test func tokenFromAnotherBusChangesNothing() {
        var registry = ListenerRegistry(busID: 1, eventCount: 10)
        var other = ListenerRegistry(busID: 2, eventCount: 10)
        let token = registry.add(ready)
        let foreign = other.add(ready)
        #expect(foreign.slot == token.slot && foreign.listenerID == token.listenerID)
        let endedForeign = registry.remove(foreign)
        #expect(!endedForeign)
        #expect(registry.isLive(token))
    }

    @Test func bucketsGrowByChunksWithoutMovingEntries() {
        var registry = ListenerRegistry(busID: 1, eventCount: 10)
        let first = registry.add(ready)
        let address = registry.entry(of: first)!.entry
        let tokens = (0..<10_000).map { _ in registry.add(ready) }
        #expect(registry.entry(of: first)!.entry == address)
        #expect(registry.liveIDs(ready) == [first.listenerID] + tokens.map(\.listenerID))
    }

    @Test func chunkPositionsCoverEveryIndexOnce() {
        var expected = 0
        for chunk in 0..<12 {
            for offset in 0..<ListenerBucket.chunkCapacity(chunk) {
                #expect(ListenerBucket.locate(expected) == (chunk, offset))
                expected += 1
            }
        }
    }

    @Test func compactionKeepsSubscriptionOrderAndTokensValid() {
        var registry = ListenerRegistry(busID: 1, eventCount: 10)
        let tokens = (0..<100).map { _ in registry.add(ready) }
        for token in tokens.enumerated() where token.offset % 3 != 0 { registry.remove(token.element) }
        let kept = tokens.enumerated().filter { $0.offset % 3 == 0 }.map(\.element)
        let bucket = registry.entry(of: kept[0])!.bucket
        #expect(bucket.count < 100, "holes were not compacted away")
        #expect(registry.liveIDs(ready) == kept.map(\.listenerID))
        for token in kept { #expect(registry.entry(of: token)?.entry.pointee.id == token.listenerID) }
        for token in kept {
            let removed = registry.remove(token)
            #expect(removed)
        }
    }

    @Test func endingTheNewestSubscriptionsLeavesNoHoles() {
        var registry = ListenerRegistry(busID: 1, eventCount: 10)
        let tokens = (0..<10).map { _ in registry.add(ready) }
        let bucket = registry.entry(of: tokens[0])!.bucket
        for token in tokens[5...].reversed() { registry.remove(token) }
        #expect(bucket.count == 5)
        #expect(bucket.publishedCount == 5)
    }

    @Test func storageReturnsToBaselineAfterSubscriptionsEnd() {
        var registry = ListenerRegistry(busID: 1, eventCount: 10)
        let tokens = (0..<1_000).map { registry.add($0 % 10) }
        for token in tokens.shuffled() { registry.remove(token) }
        #expect(registry.totalCount == 0)
        #expect(registry.entryCount == 0)
    }

    @Test func closeEndsEverySubscriptionAndRefusesNewOnes() {
        var registry = ListenerRegistry(busID: 1, eventCount: 10)
        let tokens = (0..<5).map { _ in registry.add(ready) }
        #expect(registry.close().count == 5)
        for token in tokens { #expect(!registry.isLive(token)) }
        let late = registry.subscribe(
            event: ready, lane: 0, lifetime: nil,
            token: { EventListenerToken(busID: 1, listenerID: $0, slot: $1, issuer: nil) },
            makeCallback: { _ in .released })
        #expect(late.bucket == nil)
        #expect(registry.count(for: ready) == 0)
    }

    @Test func subscriptionsOfADeadOwnerAreSweptAndOthersKept() {
        var registry = ListenerRegistry(busID: 1, eventCount: 10)
        var owner: Canary? = Canary()
        let owned = registry.add(ready, lifetime: SubscriptionLifetime(owner: owner))
        let plain = registry.add(ready)
        #expect(registry.sweepDeadOwners().ended.isEmpty)
        owner = nil
        let swept = registry.sweepDeadOwners()
        #expect(swept.ended.map(\.id) == [owned.listenerID])
        #expect(registry.isLive(plain))
    }

    @Test func endingAllOfAnOwnerLeavesOtherSubscriptions() {
        var registry = ListenerRegistry(busID: 1, eventCount: 10)
        let owner = Canary()
        let other = Canary()
        _ = registry.add(ready, lifetime: SubscriptionLifetime(owner: owner))
        _ = registry.add(bucketing, lifetime: SubscriptionLifetime(owner: owner))
        let kept = registry.add(ready, lifetime: SubscriptionLifetime(owner: other))
        #expect(registry.endAll(ownedBy: ObjectIdentifier(owner)).count == 2)
        #expect(registry.isLive(kept))
        #expect(registry.totalCount == 1)
    }
}
