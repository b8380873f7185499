// What Docs/OnlineOfflineAndCache.md's examples use without declaring it.

import Foundation
import SDKEventBus

/// An SDK's own configuration type.
struct FlagSet: RemoteConfig, Codable {
    var flags: [String: Bool]
}

let key = "sdk-key"
let flagsURL = URL(string: "https://flags.example.com/flags.json")!
