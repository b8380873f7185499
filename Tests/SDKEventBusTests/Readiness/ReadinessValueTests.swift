import Foundation
import Testing

@testable import SDKEventBusConfig
@testable import SDKEventBusCore
@testable import SDKEventBusWire

/// The values readiness is described with cannot say something false: no configuration comes from a
/// degraded start, and readinesses are not compared by their errors' descriptions.
@Suite struct ReadinessValueTests {
    @Test func noConfigurationCanBeSaidToComeFromADegradedStart() {
        #expect(ConfigSource(rawValue: "degraded") == nil, "setConfig(_:from:) takes no such source")
        #expect(Readiness.Source(rawValue: "degraded") == .degraded, "readiness still says it")
    }

    @Test func everySourceOfAConfigurationIsASourceOfReadinessOfTheSameName() {
        for source in [ConfigSource.live, .cache, .initial] {
            #expect(Readiness.Source(source).rawValue == source.rawValue)
        }
    }

    @Test func readinessIsNotComparedByItsErrorsDescriptions() {
        struct Offline: Error, CustomStringConvertible { var description: String { "offline" } }
        struct Refused: Error, CustomStringConvertible { var description: String { "offline" } }
        let readinesses: [Any] = [
            Readiness(source: .degraded, error: Offline()), Readiness(source: .degraded, error: Refused()),
        ]
        // Two different errors that describe themselves alike made two readinesses `==`.
        #expect(!readinesses.contains { $0 is any Equatable })
    }
}
