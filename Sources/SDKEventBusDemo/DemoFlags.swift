import Foundation
import SDKEventBus
import SDKEventBusTesting

// A feature-flag SDK's own catalog, declared outside the package the way any SDK declares one:
// its events and payloads, its configuration (a flagd flag set), and how the lifecycle announces
// readiness and changes.

/// The feature-flag SDK's events; the raw values are its wire names.
enum FlagEvent: String, EventCatalog, LifecycleCatalog {
    case initialized
    case flagsChanged = "flags.changed"
    case error

    typealias Payload = FlagPayload
    typealias Config = FlagSet

    /// `initialized` is sticky: a listener added after readiness still hears of it once.
    var replayRule: ReplayRule { self == .initialized ? .sticky : .none }

    static func readyPayload(_ readiness: Readiness, config: FlagSet?) -> FlagPayload {
        .initialized(source: readiness.source)
    }

    /// Names the flags added, removed or changed; nothing when no flag changed.
    static func configUpdatedPayload(_ update: ConfigUpdate<FlagSet>) -> FlagPayload? {
        let keys = update.current.changedKeys(since: update.previous)
        return keys.isEmpty ? nil : .flagsChanged(keys)
    }
}

/// The payload of a ``FlagEvent``.
enum FlagPayload: CatalogPayload {
    case initialized(source: Readiness.Source)
    case flagsChanged([String])
    case error(String)

    var event: FlagEvent {
        switch self {
        case .initialized: .initialized
        case .flagsChanged: .flagsChanged
        case .error: .error
        }
    }
}

/// A flagd flag set, reduced to what the demo shows: flags with typed variants and a default.
struct FlagSet: RemoteConfig, Codable {
    struct Flag: Sendable, Equatable, Codable {
        var state: String
        var variants: [String: Value]
        var defaultVariant: String
    }

    /// A variant's value: flagd variants are booleans, strings or numbers (or objects, not shown).
    enum Value: Sendable, Equatable, Codable, CustomStringConvertible {
        case bool(Bool)
        case number(Double)
        case string(String)

        init(from decoder: any Decoder) throws {
            let container = try decoder.singleValueContainer()
            if let bool = try? container.decode(Bool.self) {
                self = .bool(bool)
            } else if let number = try? container.decode(Double.self) {
                self = .number(number)
            } else {
                self = .string(try container.decode(String.self))
            }
        }

        func encode(to encoder: any Encoder) throws {
            var container = encoder.singleValueContainer()
            switch self {
            case .bool(let bool): try container.encode(bool)
            case .number(let number): try container.encode(number)
            case .string(let string): try container.encode(string)
            }
        }

        var description: String {
            switch self {
            case .bool(let bool): "\(bool)"
            case .number(let number): "\(number.formatted())"
            case .string(let string): "\"\(string)\""
            }
        }
    }

    var flags: [String: Flag]

    /// The value `key` serves by default.
    func value(of key: String) -> String {
        flags[key].flatMap { $0.variants[$0.defaultVariant] }.map { "\($0)" } ?? "absent"
    }

    /// The keys of the flags added, removed or changed since `previous`, sorted.
    func changedKeys(since previous: FlagSet?) -> [String] {
        let before = previous?.flags ?? [:]
        return Set(flags.keys).union(before.keys).filter { flags[$0] != before[$0] }.sorted()
    }
}

/// The bodies the demo's flag server serves.
enum DemoFlags {
    static let first = body(newCheckout: "off")
    static let second = body(newCheckout: "on")
    /// A body with `new-checkout` twice: well-formed-looking JSON that strict decoding rejects.
    static let duplicateKey = Data(
        #"""
        {"flags": {
           "new-checkout": {"state": "ENABLED", "variants": {"on": true, "off": false}, "defaultVariant": "on"},
           "new-checkout": {"state": "ENABLED", "variants": {"on": true, "off": false}, "defaultVariant": "off"}
         }}
        """#.utf8)

    private static func body(newCheckout: String) -> Data {
        Data(
            #"""
            {"$schema": "https://flagd.dev/schema/v0/flags.json",
             "flags": {
               "new-checkout": {"state": "ENABLED", "variants": {"on": true, "off": false}, "defaultVariant": "\#(newCheckout)"},
               "banner-text": {"state": "ENABLED", "variants": {"spring": "Spring sale", "none": ""}, "defaultVariant": "spring"},
               "discount-percent": {"state": "ENABLED", "variants": {"low": 5, "high": 15}, "defaultVariant": "low"}
             }}
            """#.utf8)
    }
}
