import Testing

@testable import SDKEventBus
@testable import SDKEventBusConfig
@testable import SDKEventBusCore
@testable import SDKEventBusWire

/// What `.configUpdated` says changed: the keys of each kind of entity added, removed and changed.
@Suite struct ProjectConfigChangesTests {
    static let base = ProjectConfig(
        accountId: "1",
        project: .init(id: "p", name: "Project"),
        experiences: [.init(id: "e1", key: "checkout", name: "Checkout"), .init(id: "e2", key: "hero", name: "Hero")],
        goals: [.init(id: "g1", key: "purchase", name: "Purchase")],
        audiences: [.init(id: "a1", key: "mobile", name: "Mobile")],
        segments: [.init(id: "s1", key: "returning", name: "Returning")],
        locations: [.init(id: "l1", key: "home", name: "Home")],
        features: [.init(id: "f1", key: "dark-mode", name: "Dark mode")]
    )

    @Test func equalConfigurationsHaveNoChanges() {
        let changes = ProjectConfigChanges(from: Self.base, to: Self.base)
        #expect(changes.isEmpty)
        #expect(changes.description == "no changes")
    }

    @Test func addedRemovedAndChangedExperiencesAreNamedByKey() {
        var new = Self.base
        new.experiences[0].name = "Checkout v2"
        new.experiences.remove(at: 1)
        new.experiences.append(.init(id: "e3", key: "banner", name: "Banner"))
        let changes = ProjectConfigChanges(from: Self.base, to: new).experiences
        #expect(changes.added == ["banner"])
        #expect(changes.removed == ["hero"])
        #expect(changes.changed == ["checkout"])
    }

    @Test func eachKindOfEntityIsComparedOnItsOwn() {
        var new = Self.base
        new.features[0].name = "Dark"
        new.goals.append(.init(id: "g2", key: "signup", name: "Sign-up"))
        new.audiences = []
        new.segments[0].name = "Loyal"
        new.locations.append(.init(id: "l2", key: "cart", name: "Cart"))
        let changes = ProjectConfigChanges(from: Self.base, to: new)
        #expect(changes.experiences.isEmpty)
        #expect(changes.features == .init(changed: ["dark-mode"]))
        #expect(changes.goals == .init(added: ["signup"]))
        #expect(changes.audiences == .init(removed: ["mobile"]))
        #expect(changes.segments == .init(changed: ["returning"]))
        #expect(changes.locations == .init(added: ["cart"]))
        #expect(!changes.projectChanged)
    }

    @Test func aChangeOfTheProjectItselfIsFlagged() {
        var new = Self.base
        new.project.name = "Renamed"
        let changes = ProjectConfigChanges(from: Self.base, to: new)
        #expect(changes.projectChanged)
        #expect(changes.experiences.isEmpty)
    }

    @Test func withoutAPreviousConfigurationEverythingIsAdded() {
        let changes = ProjectConfigChanges(from: nil, to: Self.base)
        #expect(changes.experiences.added == ["checkout", "hero"])
        #expect(changes.features.added == ["dark-mode"])
        #expect(changes.projectChanged)
    }

    @Test func theStoreCommitsTheNewConfigurationBeforeAnnouncingItsChanges() async {
        let (bus, emitter) = EventBus.makeBus()
        let store = ConfigStore(emitter: emitter)
        var new = Self.base
        new.experiences[0].name = "Checkout v2"
        let seen = LockedValue<[ProjectConfig?]>([])
        _ = bus.on(.configUpdated, delivery: .immediate) { payload in
            seen.withLock { $0.append(store.config) }
            #expect(ConfigUpdatedPayload(payload)?.changes?.experiences.changed == ["checkout"])
        }
        await store.setConfig(Self.base)
        await store.setConfig(new)
        #expect(seen.withLock { $0 } == [new], "the listener read the new configuration from the store")
    }
}
