import Foundation
import SDKEventBusConfig
import Testing

/// One kind of malformed flagd body, and how it must be rejected.
struct MalformedFlagSet: CustomTestStringConvertible, Sendable {
    let name: String
    let body: Data
    let code: JSONDecodingError.Code
    /// The path the error must name, when the kind has one.
    let path: String?

    var testDescription: String { name }

    /// Every kind of malformed body the flag SDK must reject: truncated JSON, wrong types, values
    /// the flagd format does not allow, missing fields, duplicate keys, an empty body, and more.
    static let corpus: [MalformedFlagSet] = {
        let text = FlagFixtures.text
        let minimal = #"{"flags":{"deep":{"state":"ENABLED","variants":{"on":true},"defaultVariant":"on","targeting":"#
        return [
            // Empty and truncated
            MalformedFlagSet(name: "empty body", body: Data(), code: .emptyBody, path: ""),
            MalformedFlagSet(name: "only whitespace", body: Data(" \n\t ".utf8), code: .emptyBody, path: ""),
            MalformedFlagSet(
                name: "truncated in the middle", body: Data(text.utf8.prefix(text.utf8.count / 2)),
                code: .invalidSyntax, path: nil),
            MalformedFlagSet(
                name: "missing closing brace", body: Data(text.utf8.dropLast(2)), code: .invalidSyntax, path: nil),
            MalformedFlagSet(
                name: "trailing comma", body: FlagFixtures.editing(#""two": 2.34"#, to: #""two": 2.34,"#),
                code: .invalidSyntax, path: "flags.myFloatFlag.variants"),
            // Wrong types
            MalformedFlagSet(name: "top-level array", body: Data("[\(text)]".utf8), code: .wrongType, path: ""),
            MalformedFlagSet(
                name: "flags is an array", body: FlagFixtures.editingObject { $0["flags"] = [] },
                code: .wrongType, path: "flags"),
            MalformedFlagSet(
                name: "state is a boolean", body: FlagFixtures.editingFlag("myBoolFlag") { $0["state"] = true },
                code: .wrongType, path: "flags.myBoolFlag.state"),
            MalformedFlagSet(
                name: "variants is a string", body: FlagFixtures.editingFlag("myIntFlag") { $0["variants"] = "one" },
                code: .wrongType, path: "flags.myIntFlag.variants"),
            MalformedFlagSet(
                name: "defaultVariant is a number",
                body: FlagFixtures.editingFlag("myFloatFlag") { $0["defaultVariant"] = 1 },
                code: .wrongType, path: "flags.myFloatFlag.defaultVariant"),
            // Values the flagd format does not allow
            MalformedFlagSet(
                name: "unknown state", body: FlagFixtures.editingFlag("myBoolFlag") { $0["state"] = "PAUSED" },
                code: .invalidValue, path: "flags.myBoolFlag.state"),
            MalformedFlagSet(
                name: "variants of mixed types",
                body: FlagFixtures.editingFlag("myBoolFlag") { $0["variants"] = ["on": true, "off": "false"] },
                code: .invalidValue, path: "flags.myBoolFlag.variants"),
            MalformedFlagSet(
                name: "null variant",
                body: FlagFixtures.editingFlag("myStringFlag") { $0["variants"] = ["key1": "val1", "key2": NSNull()] },
                code: .invalidValue, path: "flags.myStringFlag.variants"),
            MalformedFlagSet(
                name: "defaultVariant names no variant",
                body: FlagFixtures.editingFlag("myStringFlag") { $0["defaultVariant"] = "key3" },
                code: .invalidValue, path: "flags.myStringFlag.defaultVariant"),
            // Missing fields
            MalformedFlagSet(
                name: "missing flags", body: FlagFixtures.editingObject { $0["flags"] = nil },
                code: .missingField, path: "flags"),
            MalformedFlagSet(
                name: "missing state", body: FlagFixtures.editingFlag("targetedFlag") { $0["state"] = nil },
                code: .missingField, path: "flags.targetedFlag.state"),
            MalformedFlagSet(
                name: "missing defaultVariant",
                body: FlagFixtures.editingFlag("fibAlgo") { $0["defaultVariant"] = nil },
                code: .missingField, path: "flags.fibAlgo.defaultVariant"),
            MalformedFlagSet(
                name: "missing variants", body: FlagFixtures.editingFlag("myObjectFlag") { $0["variants"] = nil },
                code: .missingField, path: "flags.myObjectFlag.variants"),
            MalformedFlagSet(
                name: "flag is null",
                body: FlagFixtures.editingObject { object in
                    var flags = object["flags"] as! [String: Any]
                    flags["myIntFlag"] = NSNull()
                    object["flags"] = flags
                },
                code: .missingField, path: "flags.myIntFlag"),
            // Duplicate keys
            MalformedFlagSet(
                name: "duplicate flag key", body: FlagFixtures.editing(#""myStringFlag": {"#, to: #""myBoolFlag": {"#),
                code: .duplicateKey, path: "flags.myBoolFlag"),
            MalformedFlagSet(
                name: "duplicate variant key", body: FlagFixtures.editing(#""key2": "val2""#, to: #""key1": "val2""#),
                code: .duplicateKey, path: "flags.myStringFlag.variants.key1"),
            // Encoding, depth, range
            MalformedFlagSet(
                name: "non-UTF-8 byte in a variant",
                body: Data(#"{"flags":{"a":{"state":"ENABLED","variants":{"x":""#.utf8) + Data([0xC3, 0x28])
                    + Data(#""},"defaultVariant":"x"}}}"#.utf8),
                code: .invalidEncoding, path: "flags.a.variants.x"),
            MalformedFlagSet(
                name: "targeting nested 200 deep",
                body: Data(
                    (minimal + String(repeating: "[", count: 200) + String(repeating: "]", count: 200) + "}}}").utf8),
                code: .nestingTooDeep, path: nil),
            MalformedFlagSet(
                name: "number out of range", body: FlagFixtures.editing(#""one": 1,"#, to: #""one": 1e400,"#),
                code: .numberOutOfRange, path: "flags.myIntFlag.variants.one"),
        ]
    }()
}
