// What the documentation's examples use without declaring it: compiled with every document's examples
// by Scripts/check-doc-examples.py. Nothing here runs.

import Foundation
import SDKEventBus
import SDKEventBusTesting

/// A fetch service, as the SDK author would pass one.
let service = MockConfigFetchService([])
/// A configuration.
let config = ProjectConfig(accountId: "1", project: .init(id: "10", name: "Shop"))
/// An error, as a fetch or the SDK would report one.
let error = SampleError()
/// A bus and its emitter.
let (bus, emitter) = EventBus.makeBus()
/// Where the configuration is served.
let configURL = URL(string: "https://cdn.example.com/config.json")!

struct SampleError: Error {}

/// Shows a payload on screen.
@MainActor func render(_ payload: EventPayloadValue) {}

/// An SDK's own HTTP client.
struct SDKTransport: Sendable {
    func get(_ path: String) async throws -> Data { Data() }
}
