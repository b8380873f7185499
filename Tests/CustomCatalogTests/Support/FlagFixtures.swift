import Foundation
import SDKEventBusConfig

/// The flagd flag set committed as a test resource, a second version of it, and edits of both.
enum FlagFixtures {
    /// `flagd-flags.json`: the sample flag set published with open-feature/flagd.
    static let data = resource("flagd-flags")
    /// `flagd-flags-v2.json`: the same set with one flag changed (`myBoolFlag` now defaults to off).
    static let secondVersionData = resource("flagd-flags-v2")

    static var text: String { String(decoding: data, as: UTF8.self) }

    static let flagSet = decoded(data)
    static let secondVersion = decoded(secondVersionData)

    /// A small flag set whose one flag serves `value`, so tests can make distinct sets.
    static func flagSet(serving value: String) -> FlagSet {
        FlagSet(flags: [
            "banner": Flag(variants: ["shown": .string(value), "hidden": .string("")], defaultVariant: "shown")
        ])
    }

    /// The fixture with `target` replaced by `replacement`, which must occur exactly once.
    static func editing(_ target: String, to replacement: String, in text: String = text) -> Data {
        let parts = text.components(separatedBy: target)
        precondition(parts.count == 2, "\"\(target)\" occurs \(parts.count - 1) times in the fixture")
        return Data(parts.joined(separator: replacement).utf8)
    }

    /// The fixture's JSON object, edited, then serialized again.
    static func editingObject(_ edit: (inout [String: Any]) -> Void) -> Data {
        var object = (try? JSONSerialization.jsonObject(with: data)) as? [String: Any] ?? [:]
        edit(&object)
        return (try? JSONSerialization.data(withJSONObject: object, options: [.sortedKeys])) ?? Data()
    }

    /// The fixture with one flag's JSON object edited.
    static func editingFlag(_ key: String, _ edit: (inout [String: Any]) -> Void) -> Data {
        editingObject { object in
            var flags = object["flags"] as! [String: Any]
            var flag = flags[key] as! [String: Any]
            edit(&flag)
            flags[key] = flag
            object["flags"] = flags
        }
    }

    private static func resource(_ name: String) -> Data {
        guard
            let url = Bundle.module.url(forResource: name, withExtension: "json", subdirectory: "Resources"),
            let data = try? Data(contentsOf: url)
        else { fatalError("Resources/\(name).json is missing from the test bundle") }
        return data
    }

    private static func decoded(_ data: Data) -> FlagSet {
        do { return try FlagSet.decode(from: data) } catch { fatalError("\(error)") }
    }
}
