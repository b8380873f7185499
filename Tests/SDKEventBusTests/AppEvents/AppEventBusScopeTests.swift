import Foundation
import Testing

@testable import SDKEventBusAppEvents
@testable import SDKEventBusCore

/// What a container promises about its scopes, found by driving it from outside (issue 35): scopes
/// come and go in constant time on average.
@Suite(.timeLimit(.minutes(2))) struct AppEventBusScopeTests {
    /// A scope whose hash value is its `group`: scopes of one group share a hash value, and so a
    /// bucket of the container's table.
    struct CollidingScope: Hashable, Sendable, CustomStringConvertible {
        let group: Int
        let name: Int

        func hash(into hasher: inout Hasher) { hasher.combine(group) }

        var description: String { "\(group)/\(name)" }
    }

    // MARK: 5. Scopes come and go in linear time

    /// Creating or releasing a scope writes a constant number of the table's entries on average,
    /// however many scopes there are.
    ///
    /// Each change touches the scope's bucket, and a resize, which moves every entry, comes after as
    /// many changes as there are entries. (The container used to
    /// copy its whole registry for each change: N scopes wrote N² / 2 entries, and took 25 s at
    /// 40,000.) Counted through the table's own hook, not timed: the benchmark
    /// `container/… scopes created and released` times it.
    @Test(arguments: [1_000, 8_000])
    func scopesComeAndGoWithAConstantAmountOfWorkEachOnAverage(scopes: Int) {
        let container = AppEventBusContainer<Int>()
        for scope in 0..<scopes { _ = container.bus(for: scope) }
        let written = container.entriesWritten
        #expect(written <= 3 * scopes, "one entry per scope, and each resize moves the entries once")
        for scope in 0..<scopes { container.release(scope) }
        #expect(container.scopes.isEmpty)
        #expect(
            container.entriesWritten - written <= scopes,
            "releasing writes no entry but those the shrinking resizes move")
    }

    /// Scopes whose hash values collide share a bucket, and each keeps its own bus through every
    /// change around it.
    @Test func scopesWhoseHashValuesCollideKeepTheirOwnBuses() throws {
        let container = AppEventBusContainer<CollidingScope>()
        let scopes = (0..<300).map { CollidingScope(group: $0 % 3, name: $0) }
        let buses = scopes.map { container.bus(for: $0) }
        #expect(Set(buses.map(ObjectIdentifier.init)).count == scopes.count, "a bus per scope")
        for (scope, bus) in zip(scopes, buses) {
            #expect(container.bus(for: scope) === bus)
            #expect(bus.name == scope.description)
        }
        for scope in scopes where scope.name.isMultiple(of: 2) { #expect(container.release(scope)) }
        for (scope, bus) in zip(scopes, buses) {
            #expect(container.existingBus(for: scope) === (scope.name.isMultiple(of: 2) ? nil : bus))
        }
        let mine = AppEventBus(name: "mine")
        try container.register(mine, for: CollidingScope(group: 1, name: 10))
        #expect(container.existingBus(for: CollidingScope(group: 1, name: 10)) === mine)
        #expect(container.scopes.count == 151)
    }

    /// Seeded random sequences of every operation, checked after each step against a dictionary:
    /// the container keeps every scope's bus through the table's growing and shrinking.
    @Test(arguments: [3_501, 3_502, 3_503])
    func everyScopeKeepsItsBusThroughTheTablesGrowingAndShrinking(seed: UInt64) throws {
        var random = SplitMix64(seed: seed)
        let container = AppEventBusContainer<Int>()
        var model: [Int: AppEventBus] = [:]
        for step in 0..<6_000 {
            // Scopes drift upwards: the table grows to about 1,000 scopes, then shrinks.
            let growing = step < 3_000
            let scope = Int.random(in: 0..<1_200, using: &random)
            switch Int.random(in: 0..<10, using: &random) {
            case 0..<(growing ? 5 : 2):
                let bus = container.bus(for: scope)
                if let known = model[scope] { #expect(bus === known, "step \(step)") }
                model[scope] = bus
            case 5:
                let bus = AppEventBus()
                do {
                    try container.register(bus, for: scope)
                    #expect(model[scope] == nil, "step \(step)")
                    model[scope] = bus
                } catch {
                    #expect(error == .alreadyRegistered(scope: "\(scope)"), "step \(step)")
                    #expect(model[scope] != nil, "step \(step)")
                }
            case 6:
                #expect(container.existingBus(for: scope) === model[scope], "step \(step)")
            default:
                #expect(container.release(scope) == (model.removeValue(forKey: scope) != nil), "step \(step)")
            }
        }
        #expect(Set(container.scopes) == Set(model.keys))
        for (scope, bus) in model { #expect(container.existingBus(for: scope) === bus) }
    }
}
