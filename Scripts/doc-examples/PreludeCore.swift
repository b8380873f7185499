// What the examples of the documents for an SDK with its own catalog (compiled against
// SDKEventBusCore only) use without declaring it: compiled with each of them by
// Scripts/check-doc-examples.py. Nothing here runs.

import Foundation
import SDKEventBusCore

/// Where the flag set is served.
let flagsURL = URL(string: "https://flags.example.com/flags.json")!

/// An SDK's own HTTP client.
struct SDKTransport: Sendable {
    func get(_ path: String) async throws -> Data { Data() }
}
