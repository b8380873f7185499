import Foundation
import SDKEventBus
import Testing

/// The real CDN project configuration committed as a test resource, and variations of it.
enum Fixtures {
    static let projectConfigData: Data = {
        guard
            let url = Bundle.module.url(
                forResource: "project-config", withExtension: "json", subdirectory: "Resources"),
            let data = try? Data(contentsOf: url)
        else { fatalError("Resources/project-config.json is missing from the test bundle") }
        return data
    }()

    static let projectConfigText = String(decoding: projectConfigData, as: UTF8.self)

    static let projectConfig: ProjectConfig = {
        do { return try ProjectConfig(jsonData: projectConfigData) } catch { fatalError("\(error)") }
    }()

    /// A small valid configuration whose project name is `name`, so tests can make distinct configs.
    static func config(named name: String) -> ProjectConfig {
        ProjectConfig(
            accountId: "10035569",
            project: ProjectConfig.Project(id: "10034190", name: name),
            experiences: [
                ProjectConfig.Experience(
                    id: "100334665",
                    key: "exp",
                    name: "Experience",
                    variations: [ProjectConfig.Variation(id: "1", key: "a", name: "A", trafficAllocation: 100)]
                )
            ]
        )
    }

    /// The fixture's JSON object, to edit before re-serializing.
    static func fixtureObject() -> [String: Any] {
        (try? JSONSerialization.jsonObject(with: projectConfigData)) as? [String: Any] ?? [:]
    }

    static func serialize(_ object: Any) -> Data {
        (try? JSONSerialization.data(withJSONObject: object)) ?? Data()
    }
}

/// One kind of malformed configuration body, and how it must be rejected.
struct MalformedBody: CustomTestStringConvertible, Sendable {
    let name: String
    let body: Data
    let code: JSONDecodingError.Code
    /// The path the error must name, when the kind has one.
    let path: String?

    var testDescription: String { name }

    /// Every kind of malformed body the decoder must reject.
    static let corpus: [MalformedBody] = {
        let fixture = Fixtures.projectConfigText
        func edited(_ edit: (inout [String: Any]) -> Void) -> Data {
            var object = Fixtures.fixtureObject()
            edit(&object)
            return Fixtures.serialize(object)
        }
        func editedExperience(_ edit: (inout [String: Any]) -> Void) -> Data {
            edited { object in
                var experiences = object["experiences"] as! [[String: Any]]
                edit(&experiences[0])
                object["experiences"] = experiences
            }
        }
        func editedVariation(_ edit: (inout [String: Any]) -> Void) -> Data {
            editedExperience { experience in
                var variations = experience["variations"] as! [[String: Any]]
                edit(&variations[1])
                experience["variations"] = variations
            }
        }
        var garbage = [UInt8](repeating: 0, count: 10_000_000)
        var state: UInt64 = 0x9E37_79B9_7F4A_7C15
        for index in garbage.indices {
            state = state &* 6_364_136_223_846_793_005 &+ 1_442_695_040_888_963_407
            garbage[index] = UInt8(truncatingIfNeeded: state >> 33)
        }
        garbage[0] = UInt8(ascii: "{")

        return [
            MalformedBody(name: "empty body", body: Data(), code: .emptyBody, path: ""),
            MalformedBody(name: "only whitespace", body: Data(" \n\t\r ".utf8), code: .emptyBody, path: ""),
            MalformedBody(name: "null", body: Data("null".utf8), code: .wrongType, path: ""),
            MalformedBody(name: "top-level array", body: Data("[\(fixture)]".utf8), code: .wrongType, path: ""),
            MalformedBody(name: "top-level string", body: Data("\"config\"".utf8), code: .wrongType, path: ""),
            MalformedBody(
                name: "truncated in the middle",
                body: Data(fixture.utf8.prefix(fixture.utf8.count / 2)),
                code: .invalidSyntax,
                path: nil
            ),
            MalformedBody(
                name: "missing closing brace",
                body: Data(fixture.utf8.dropLast()),
                code: .invalidSyntax,
                // The root object is the one left open: its last member is complete.
                path: ""
            ),
            MalformedBody(
                name: "trailing garbage",
                body: Data((fixture + "}").utf8),
                code: .invalidSyntax,
                path: ""
            ),
            MalformedBody(
                name: "trailing comma",
                body: Data(#"{"account_id":"1","project":{"id":"1","name":"p",},"experiences":[]}"#.utf8),
                code: .invalidSyntax,
                // After the comma, a key is missing in `project`.
                path: "project"
            ),
            MalformedBody(
                name: "single-quoted string",
                body: Data(#"{'account_id':"1"}"#.utf8),
                code: .invalidSyntax,
                path: ""
            ),
            MalformedBody(
                name: "leading zero",
                body: Data(#"{"account_id":"1","n":007}"#.utf8),
                code: .invalidSyntax,
                path: "n"
            ),
            MalformedBody(
                name: "account_id is a number",
                body: edited { $0["account_id"] = 10_035_569 },
                code: .wrongType,
                path: "account_id"
            ),
            MalformedBody(
                name: "experiences is an object",
                body: edited { $0["experiences"] = ["id": "1"] },
                code: .wrongType,
                path: "experiences"
            ),
            MalformedBody(
                name: "traffic_allocation is a string",
                body: editedVariation { $0["traffic_allocation"] = "50%" },
                code: .wrongType,
                path: "experiences[0].variations[1].traffic_allocation"
            ),
            MalformedBody(
                name: "project name is a bool",
                body: edited { object in
                    var project = object["project"] as! [String: Any]
                    project["name"] = true
                    object["project"] = project
                },
                code: .wrongType,
                path: "project.name"
            ),
            MalformedBody(
                name: "missing account_id",
                body: edited { $0["account_id"] = nil },
                code: .missingField,
                path: "account_id"
            ),
            MalformedBody(
                name: "missing experience key",
                body: editedExperience { $0["key"] = nil },
                code: .missingField,
                path: "experiences[0].key"
            ),
            MalformedBody(
                name: "missing traffic_allocation",
                body: editedVariation { $0["traffic_allocation"] = nil },
                code: .missingField,
                path: "experiences[0].variations[1].traffic_allocation"
            ),
            MalformedBody(
                name: "project is null",
                body: edited { $0["project"] = NSNull() },
                code: .missingField,
                path: "project"
            ),
            MalformedBody(
                name: "non-UTF-8 byte in a string",
                body: Data(#"{"account_id":""#.utf8) + Data([0xC3, 0x28]) + Data(#""}"#.utf8),
                code: .invalidEncoding,
                path: "account_id"
            ),
            // A leading UTF-8 byte order mark is no fault: ByteOrderMarkTests. Two of them are.
            MalformedBody(
                name: "two byte order marks",
                body: Data([0xEF, 0xBB, 0xBF, 0xEF, 0xBB, 0xBF]) + Fixtures.projectConfigData,
                code: .invalidSyntax,
                path: ""
            ),
            MalformedBody(
                name: "UTF-16",
                body: fixture.data(using: .utf16LittleEndian)!,
                code: .invalidEncoding,
                path: ""
            ),
            MalformedBody(name: "10 MB of garbage", body: Data(garbage), code: .invalidSyntax, path: ""),
            MalformedBody(
                name: "10,000-deep nesting",
                body: Data(
                    (#"{"account_id":"#
                        + String(repeating: "[", count: 10_000) + String(repeating: "]", count: 10_000) + "}").utf8),
                code: .nestingTooDeep,
                path: nil
            ),
            MalformedBody(
                name: "duplicate top-level key",
                body: Data(
                    fixture.replacingOccurrences(
                        of: #"{"account_id":"10035569","#, with: #"{"account_id":"10035569","account_id":"1","#
                    ).utf8),
                code: .duplicateKey,
                path: "account_id"
            ),
            MalformedBody(
                name: "duplicate key spelled with an escape",
                body: Data(#"{"account_id":"1","project":{"id":"1","\u0069d":"2"}}"#.utf8),
                code: .duplicateKey,
                path: "project.id"
            ),
            MalformedBody(
                name: "number out of range",
                body: Data(
                    fixture.replacingOccurrences(
                        of: #""traffic_allocation":50.0"#, with: #""traffic_allocation":1e400"#
                    ).utf8),
                code: .numberOutOfRange,
                path: "experiences[0].variations[0].traffic_allocation"
            ),
            MalformedBody(
                name: "lone surrogate escape",
                body: Data(#"{"account_id":"\ud800x"}"#.utf8),
                code: .invalidSyntax,
                path: "account_id"
            ),
            MalformedBody(
                name: "raw control character in a string",
                body: Data("{\"account_id\":\"a\u{07}b\"}".utf8),
                code: .invalidSyntax,
                path: "account_id"
            ),
            MalformedBody(
                name: "overlong UTF-8 encoding",
                body: Data(#"{"account_id":""#.utf8) + Data([0xC0, 0xAF]) + Data(#""}"#.utf8),
                code: .invalidEncoding,
                path: "account_id"
            ),
        ]
    }()
}
