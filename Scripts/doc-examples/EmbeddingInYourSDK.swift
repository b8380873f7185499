// What Docs/EmbeddingInYourSDK.md's examples use without declaring it; the flag catalog itself
// comes from Docs/DefiningYourCatalog.md, compiled in the same target.

import SDKEventBusCore
import SDKEventBusTesting

/// A fetch service, as the SDK author would pass one.
let service = ScriptedConfigFetchService<FlagSet>([])

/// A flag set that reached the SDK another way (a push channel).
let pushedFlags = FlagSet(flags: [:])

/// The flag SDK's own terminal errors.
enum FlagSDKError: Error {
    case invalidKey
}

/// An SDK component that evaluates flags and fires what it finds.
final class FlagEvaluator: Sendable {
    static let shared = FlagEvaluator()
    func start(client: FlagClient, emitter: CatalogEmitter<FlagEvent>) {}
}
