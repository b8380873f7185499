import Foundation
import Testing

@testable import SDKEventBus
@testable import SDKEventBusConfig
@testable import SDKEventBusCore
@testable import SDKEventBusWire

/// An SDK's own `Decodable` configuration gets the strict decoding of `RemoteConfig`.
///
/// Every malformed body is rejected with a code, the JSON path and the reason, whatever the decoder
/// reported. A number that does not fit its field's type used to come out as "The given data was
/// not valid JSON" with no path, as did an error the configuration's own `init(from:)` threw.
@Suite struct CustomConfigurationDecodingTests {
    /// An SDK's configuration with whole numbers, nested objects and arrays, a dictionary of small
    /// numbers, a `Float`, an enum and a field that validates itself.
    struct RolloutConfig: RemoteConfig, Codable {
        enum Stage: String, Codable {
            case beta
            case live
        }

        struct Rollout: Codable, Equatable {
            var percent: Int
            var buckets: [Int]?
        }

        /// A field whose own `init(from:)` rejects a negative value.
        struct Guarded: Codable, Equatable {
            struct Negative: Error, CustomStringConvertible {
                var description: String { "the value must not be negative" }
            }

            var value: Int

            init(from decoder: any Decoder) throws {
                value = try decoder.singleValueContainer().decode(Int.self)
                if value < 0 { throw Negative() }
            }
        }

        var version: Int
        var rollouts: [Rollout]?
        var limits: [String: UInt8]?
        var ratio: Float?
        var stage: Stage?
        var guarded: Guarded?
    }

    static func error(decoding body: String) -> JSONDecodingError? {
        do {
            _ = try RolloutConfig.decode(from: Data(body.utf8))
            return nil
        } catch {
            return error
        }
    }

    // MARK: Numbers that do not fit their field

    @Test func aFractionIntoAnIntNamesThePathAndTheNumber() throws {
        let error = try #require(Self.error(decoding: #"{"version": 1.5}"#))
        #expect(error.code == .wrongType)
        #expect(error.path == "version")
        #expect(error.reason == "expected a whole number (Int), found 1.5")
        #expect(
            error.description
                == "JSON rejected (wrongType), at version: expected a whole number (Int), found 1.5")
    }

    @Test func aNumberTooLargeForAnIntNamesThePathAndTheRange() throws {
        let error = try #require(Self.error(decoding: #"{"version": 99999999999999999999}"#))
        #expect(error.code == .numberOutOfRange)
        #expect(error.path == "version")
        #expect(
            error.reason
                == "the number 99999999999999999999 does not fit in Int (-9223372036854775808 to 9223372036854775807)")
    }

    @Test(arguments: [
        (#"{"version": 1, "rollouts": [{"percent": 1}, {"percent": 2.5}]}"#, "rollouts[1].percent", "wrongType"),
        (
            #"{"version": 1, "rollouts": [{"percent": 1, "buckets": [1, 1e30]}]}"#, "rollouts[0].buckets[1]",
            "numberOutOfRange"
        ),
        (#"{"version": 1, "limits": {"a": 1, "b": 300}}"#, "limits.b", "numberOutOfRange"),
        (#"{"version": 1, "limits": {"a": -1}}"#, "limits.a", "numberOutOfRange"),
        (#"{"version": 1, "ratio": 1e39}"#, "ratio", "numberOutOfRange"),
        (#"{"version": -9223372036854775809}"#, "version", "numberOutOfRange"),
    ])
    func aNumberThatDoesNotFitDeepInTheBodyNamesItsPath(body: String, path: String, code: String) throws {
        let error = try #require(Self.error(decoding: body))
        #expect("\(error.code)" == code, "\(error)")
        #expect(error.path == path, "\(error)")
    }

    @Test func aSmallIntegerOutOfRangeSaysWhichValuesItHolds() throws {
        let error = try #require(Self.error(decoding: #"{"version": 1, "limits": {"a": 300}}"#))
        #expect(error.reason == "the number 300 does not fit in UInt8 (0 to 255)")
    }

    @Test func anErrorTheConfigurationThrowsItselfNamesWhereAndWhat() throws {
        let error = try #require(Self.error(decoding: #"{"version": 1, "guarded": -1}"#))
        #expect(error.code == .invalidValue)
        #expect(error.path == "guarded")
        #expect(error.reason == "the value must not be negative")
    }

    @Test func aBodyThatFitsDecodes() throws {
        let config = try RolloutConfig.decode(
            from: Data(
                #"{"version": 3, "rollouts": [{"percent": 10, "buckets": [1, 2]}], "limits": {"a": 255}, "ratio": 0.5, "stage": "beta", "guarded": 4}"#
                    .utf8))
        #expect(config.version == 3)
        #expect(config.rollouts == [.init(percent: 10, buckets: [1, 2])])
        #expect(config.limits == ["a": 255])
        #expect(config.stage == .beta)
        #expect(config.guarded?.value == 4)
    }

    // MARK: Every code

    /// A body for each code a decoder reports, with the path it names.
    static let everyCode: [(code: JSONDecodingError.Code, body: String, path: String)] = [
        (.emptyBody, "  \n", ""),
        // `{"version": 1}` in UTF-16 (little-endian, no byte order mark).
        (.invalidEncoding, String(#"{"version": 1}"#.flatMap { [$0, "\u{0}"] }), ""),
        (.invalidSyntax, #"{"version": tru}"#, "version"),
        (
            .nestingTooDeep, #"{"version": 1, "rollouts": "# + String(repeating: "[", count: 200),
            "rollouts" + String(repeating: "[0]", count: 127)
        ),
        (.duplicateKey, #"{"version": 1, "version": 2}"#, "version"),
        (.numberOutOfRange, #"{"version": 1e400}"#, "version"),
        (.numberOutOfRange, #"{"version": 99999999999999999999}"#, "version"),
        (.missingField, #"{"rollouts": []}"#, "version"),
        (.missingField, #"{"version": null}"#, "version"),
        (.wrongType, #"{"version": "1"}"#, "version"),
        (.wrongType, #"{"version": 1.5}"#, "version"),
        (.wrongType, #"[1]"#, ""),
        (.invalidValue, #"{"version": 1, "stage": "gamma"}"#, "stage"),
        (.invalidValue, #"{"version": 1, "guarded": -1}"#, "guarded"),
    ]

    @Test(arguments: everyCode.indices)
    func eachCodeComesWithItsPathAndAReason(_ index: Int) throws {
        let expected = Self.everyCode[index]
        let error = try #require(Self.error(decoding: expected.body))
        #expect(error.code == expected.code, "\(error)")
        #expect(error.path == expected.path, "\(error)")
        #expect(!error.reason.isEmpty)
        #expect(!error.reason.contains("not valid JSON"), "\(error)")
    }

    @Test func everyCodeHasANameForLogs() {
        let codes: [JSONDecodingError.Code] = [
            .emptyBody, .invalidEncoding, .invalidSyntax, .nestingTooDeep, .duplicateKey,
            .numberOutOfRange, .missingField, .wrongType, .invalidValue, .unknownEvent,
        ]
        #expect(
            codes.map(\.description) == [
                "emptyBody", "invalidEncoding", "invalidSyntax", "nestingTooDeep", "duplicateKey",
                "numberOutOfRange", "missingField", "wrongType", "invalidValue", "unknownEvent",
            ])
    }
}
