import Foundation
import SDKEventBus
import SDKEventBusTesting

/// The same lifecycle with a custom catalog, on the same engine.
///
/// A feature-flag SDK whose configuration is a flagd flag set and whose events are `initialized`,
/// `flags.changed` and `error`. The flag server pushes "a new version is out", so the SDK fetches on demand: ready → a change
/// that names the changed flag → a malformed body, rejected → shutdown.
@MainActor
func playFlagTimeline() async throws {
    let timeline = Timeline()
    let service = ScriptedConfigFetchService<FlagSet>(
        [.body(DemoFlags.first), .body(DemoFlags.second), .body(DemoFlags.duplicateKey)],
        afterScript: .hang
    )
    timeline.log("sdk", "FlagClient (CatalogClient<FlagEvent>) created; flag sets are fetched on demand")
    let (client, emitter) = CatalogClient<FlagEvent>.makeClient(
        configuration: timeline.configuration(refresh: nil, describe: describeFlagStep),
        fetchService: service
    )
    let flags = client.reader  // what app code holds; the SDK keeps the client and the emitter

    let readiness = try await flags.ready()
    let config = flags.config
    timeline.log(
        "app",
        "ready() returned \(readiness): \(config?.flags.count ?? 0) flags, new-checkout is \(config?.value(of: "new-checkout") ?? "?")"
    )
    flags.bus.once(.initialized) { _ in
        timeline.log("app", "an initialized listener added after readiness still ran once (initialized is sticky)")
    }
    let changes = flags.on(.flagsChanged) { payload in
        guard case .flagsChanged(let keys) = payload else { return }
        timeline.log(
            "app",
            "flags.changed: \(keys.joined(separator: ", ")); new-checkout is now \(flags.config?.value(of: "new-checkout") ?? "?")"
        )
    }
    let errors = flags.on(.error) { payload in
        guard case .error(let message) = payload else { return }
        timeline.log("app", "error: \(message)")
    }
    await flags.bus.flush()

    timeline.log("sdk", "the flag server announces a new version: refreshNow()")
    try await client.refreshNow()
    await flags.bus.flush()

    timeline.log("sdk", "the flag server announces another version: refreshNow()")
    do {
        try await client.refreshNow()
    } catch let error as JSONDecodingError {
        timeline.log(
            "sdk", "refreshNow() threw \(error.code) at \(error.path); the SDK fires error through its emitter")
        emitter.fire(.error("flag set rejected (\(error.code) at \(error.path)); serving the last good one"))
    }
    await flags.bus.flush()
    timeline.log(
        "app", "no flags.changed fired: new-checkout is still \(flags.config?.value(of: "new-checkout") ?? "?")")

    await flags.off(changes)
    await flags.off(errors)
    timeline.log("sdk", "shutdown() returned: \(await client.shutdown())")
    timeline.log("sdk", "done")
}

/// A lifecycle step in the flag SDK's words: the descriptions of ``ConfigChange`` name the built-in
/// catalog's events (`ready`, `config.updated`).
private func describeFlagStep(_ step: LifecycleDiagnostic) -> String {
    switch step {
    case .configApplied(.first): "fetched: first flag set, initialized fired"
    case .configApplied(.updated): "fetched: flag set changed"
    case .configApplied(.unchanged): "fetched: flag set unchanged, no event"
    default: step.description
    }
}
