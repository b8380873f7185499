import Foundation
import Testing

@testable import SDKEventBusConfig
@testable import SDKEventBusCore
@testable import SDKEventBusWire

/// What `Equatable` and `Encodable` add to a configuration, found at run time: the lifecycle asks
/// nothing more of a configuration than `decode(from:)`.
@Suite struct RemoteConfigOptionsTests {
    struct Plain: RemoteConfig {
        var version: Int

        static func decode(from body: Data) throws(JSONDecodingError) -> Plain { Plain(version: body.count) }
    }

    struct Versioned: RemoteConfig, Equatable {
        var version: Int

        static func decode(from body: Data) throws(JSONDecodingError) -> Versioned {
            Versioned(version: body.count)
        }
    }

    struct Cacheable: RemoteConfig, Codable {
        var version: Int
        var stage: String
    }

    /// Equatable only when its value is: the conformance is found at run time.
    struct Wrapped<Value: Sendable & Decodable>: RemoteConfig, Decodable {
        var value: Value
    }

    @Test func anEquatableConfigurationIsTheSameWhenEqual() {
        #expect(Versioned(version: 1).isSameConfiguration(as: Versioned(version: 1)))
        #expect(!Versioned(version: 1).isSameConfiguration(as: Versioned(version: 2)))
        #expect(Wrapped(value: 1).isSameConfiguration(as: Wrapped(value: 1)))
        #expect(!Wrapped(value: 1).isSameConfiguration(as: Wrapped(value: 2)))
    }

    @Test func anotherConfigurationIsNeverTheSame() {
        #expect(!Plain(version: 1).isSameConfiguration(as: Plain(version: 1)))
    }

    @Test func anEncodableConfigurationIsCachedAsJSONThatDecodesBack() throws {
        let config = Cacheable(version: 3, stage: "beta")
        let body = try config.encodedForCache()
        #expect(String(decoding: body, as: UTF8.self) == #"{"stage":"beta","version":3}"#)
        #expect(try Cacheable.decode(from: body).version == 3)
    }

    @Test func anotherConfigurationHasNoEncoding() {
        #expect(throws: EncodingError.self) { try Plain(version: 1).encodedForCache() }
    }
}

extension RemoteConfigOptionsTests.Wrapped: Equatable where Value: Equatable {}
