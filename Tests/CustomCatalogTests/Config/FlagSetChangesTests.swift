import Foundation
import SDKEventBusConfig
import Testing

/// What `flags.changed` names: the keys of the flags added, removed or changed between two
/// versions of a flag set, and nothing when no flag changed.
@Suite struct FlagSetChangesTests {
    let v1 = FlagFixtures.flagSet

    @Test func secondVersionOfTheFixtureNamesExactlyTheFlagThatChanged() {
        #expect(FlagFixtures.secondVersion.changedKeys(since: v1) == ["myBoolFlag"])
        #expect(v1.changedKeys(since: FlagFixtures.secondVersion) == ["myBoolFlag"])
    }

    @Test func addedRemovedAndChangedFlagsAreNamedSorted() {
        var v2 = v1
        v2.flags["newCheckout"] = Flag(variants: ["on": .bool(true), "off": .bool(false)], defaultVariant: "off")
        v2.flags["myIntFlag"] = nil
        v2.flags["headerColor"]?.state = .disabled
        v2.flags["targetedFlag"]?.targeting = nil
        #expect(v2.changedKeys(since: v1) == ["headerColor", "myIntFlag", "newCheckout", "targetedFlag"])
    }

    @Test func changingASharedEvaluatorNamesTheFlagsWhoseTargetingUsesIt() throws {
        let v2 = try FlagSet.decode(from: FlagFixtures.editing("@faas.com", to: "@faas.dev"))
        #expect(v2 != v1)
        #expect(v2.changedKeys(since: v1) == ["fibAlgo", "headerColor"])
    }

    @Test func changesNoListenerCaresAboutNameNoFlagAndAnnounceNothing() {
        var v2 = v1
        v2.schema = nil
        v2.metadata = ["version": .string("2")]
        v2.evaluators?["unused"] = .object(["var": .string("country")])
        #expect(v2 != v1)
        #expect(v2.changedKeys(since: v1) == [])
        #expect(FlagEvent.configUpdatedPayload(ConfigUpdate(previous: v1, current: v2, source: .live)) == nil)
    }

    @Test func firstSetAfterADegradedStartNamesEveryFlag() {
        #expect(v1.changedKeys(since: nil) == v1.flags.keys.sorted())
    }

    @Test func catalogAnnouncesTheChangedKeysAndReadiness() {
        let update = ConfigUpdate(previous: v1, current: FlagFixtures.secondVersion, source: .live)
        #expect(
            FlagEvent.configUpdatedPayload(update) == .flagsChanged(FlagsChangedPayload(changedKeys: ["myBoolFlag"])))
        let readiness = Readiness(source: .initial)
        #expect(
            FlagEvent.readyPayload(readiness, config: v1)
                == .initialized(InitializedPayload(source: .initial, flagCount: v1.flags.count)))
    }
}
