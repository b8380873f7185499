// What Docs/EmbeddingInYourSDK.md's examples use without declaring it; the flag catalogue itself
// comes from Docs/DefiningYourCatalogue.md, compiled in the same target.

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
    func start(emitter: CatalogueEmitter<FlagEvent>) {}
}
