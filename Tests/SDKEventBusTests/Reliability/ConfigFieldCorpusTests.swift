import Foundation
import Testing

@testable import SDKEventBus
@testable import SDKEventBusConfig
@testable import SDKEventBusCore
@testable import SDKEventBusWire

/// Every modeled field of the real CDN configuration, given the wrong JSON type, and every required
/// one removed: each is rejected with an error that names its exact path.
@Suite struct ConfigFieldCorpusTests {
    /// The fields ``ProjectConfig`` models, per object, as in the wire form.
    static let required: [String: [String]] = [
        "": ["account_id", "project", "experiences"],
        "project": ["id", "name"],
        "experiences": ["id", "key", "name", "variations"],
        "variations": ["id", "key", "name", "traffic_allocation"],
        "goals": ["id", "key", "name"],
        "audiences": ["id", "key", "name"],
        "segments": ["id", "key", "name"],
        "locations": ["id", "key", "name"],
        "features": ["id", "key", "name"],
        "variables": ["key", "type"],
    ]
    static let optional: [String: [String]] = [
        "": ["goals", "audiences", "segments", "locations", "features"],
        "project": ["type", "utc_offset"],
        "experiences": ["type", "status", "environment", "audiences", "locations", "goals"],
        "variations": ["status"],
        "goals": ["type"],
        "audiences": ["type"],
        "features": ["variables"],
    ]

    /// A field of the fixture: where it is, and what kind of object holds it.
    struct Field: CustomTestStringConvertible, Sendable {
        /// Keys and array indices from the root.
        let location: [PathStep]
        let isRequired: Bool
        var path: String {
            location.reduce("") { text, step in
                switch step {
                case .key(let key): text.isEmpty ? key : "\(text).\(key)"
                case .index(let index): "\(text)[\(index)]"
                }
            }
        }
        var testDescription: String { path }
    }

    enum PathStep: Sendable {
        case key(String)
        case index(Int)
    }

    /// Every modeled field of the fixture's first entity of each list (and the second variation, so
    /// that nested indices are checked too).
    static let fields: [Field] = {
        var fields: [Field] = []
        func add(_ kind: String, at prefix: [PathStep]) {
            for key in required[kind, default: []] {
                fields.append(Field(location: prefix + [.key(key)], isRequired: true))
            }
            for key in optional[kind, default: []] {
                fields.append(Field(location: prefix + [.key(key)], isRequired: false))
            }
        }
        add("", at: [])
        add("project", at: [.key("project")])
        for list in ["experiences", "goals", "audiences", "segments", "locations", "features"] {
            add(list, at: [.key(list), .index(0)])
        }
        add("variations", at: [.key("experiences"), .index(0), .key("variations"), .index(1)])
        add("variables", at: [.key("features"), .index(0), .key("variables"), .index(0)])
        return fields
    }()

    /// The fixture with the value at `location` replaced (or removed, for `nil`).
    static func fixture(replacing location: [PathStep], with value: Any?) -> Data {
        func edit(_ node: Any, _ steps: ArraySlice<PathStep>) -> Any {
            guard let step = steps.first else { return value as Any }
            switch step {
            case .key(let key):
                var object = node as! [String: Any]
                if steps.count == 1, value == nil {
                    object[key] = nil
                } else {
                    object[key] = edit(object[key] as Any, steps.dropFirst())
                }
                return object
            case .index(let index):
                var array = node as! [Any]
                array[index] = edit(array[index], steps.dropFirst())
                return array
            }
        }
        return Fixtures.serialize(edit(Fixtures.fixtureObject(), location[...]))
    }

    static func value(at location: [PathStep]) -> Any? {
        location.reduce(Fixtures.fixtureObject() as Any?) { node, step in
            switch step {
            case .key(let key): (node as? [String: Any])?[key]
            case .index(let index): (node as? [Any]).flatMap { index < $0.count ? $0[index] : nil }
            }
        }
    }

    /// A value of another JSON type than `original`.
    static func wrongTyped(_ original: Any?) -> Any {
        switch original {
        case is String: 7
        case is NSNumber: "7"
        case is [Any]: ["unexpected": "object"]
        default: ["unexpected", "array"]
        }
    }

    @Test func everyModeledFieldIsCovered() {
        #expect(Self.fields.count >= 45)
        for field in Self.fields where field.isRequired {
            #expect(Self.value(at: field.location) != nil, "\(field.path) is in the fixture")
        }
    }

    @Test(arguments: fields)
    func fieldWithTheWrongTypeIsRejectedNamingItsPath(_ field: Field) {
        let body = Self.fixture(replacing: field.location, with: Self.wrongTyped(Self.value(at: field.location)))
        #expect {
            try ProjectConfig(jsonData: body)
        } throws: { error in
            guard let error = error as? JSONDecodingError else { return false }
            return error.code == .wrongType && error.path.starts(with: field.path)
        }
    }

    @Test(arguments: fields.filter(\.isRequired))
    func missingRequiredFieldIsRejectedNamingItsPath(_ field: Field) {
        let body = Self.fixture(replacing: field.location, with: nil)
        #expect {
            try ProjectConfig(jsonData: body)
        } throws: { error in
            guard let error = error as? JSONDecodingError else { return false }
            return error.code == .missingField && error.path == field.path
        }
    }

    @Test(arguments: fields.filter { !$0.isRequired })
    func missingOptionalFieldIsAccepted(_ field: Field) throws {
        _ = try ProjectConfig(jsonData: Self.fixture(replacing: field.location, with: nil))
    }
}
