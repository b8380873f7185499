import SDKEventBusCore

/// The events of a feature-flag SDK: a second catalogue, declared outside the package the way an
/// SDK author declares theirs.
///
/// The raw values are the wire names the same SDK uses on other platforms (they follow the
/// OpenFeature provider events): `initialized` once the first flag set is in, `flags.changed` when a
/// later one adds, removes or changes flags, `error` when the SDK reports a problem.
///
/// | case | raw value | payload | replay |
/// | --- | --- | --- | --- |
/// | ``initialized`` | `initialized` | ``InitializedPayload`` | sticky |
/// | ``flagsChanged`` | `flags.changed` | ``FlagsChangedPayload`` | — |
/// | ``error`` | `error` | ``FlagErrorPayload`` | — |
enum FlagEvent: String, EventCatalogue, LifecycleCatalogue {
    /// The SDK has its first flag set; `ready()` returns from now on.
    case initialized
    /// A later flag set added, removed or changed flags.
    case flagsChanged = "flags.changed"
    /// The SDK reports a problem: a flag set it rejected, say.
    case error

    typealias Payload = FlagEventPayload
    typealias Config = FlagSet

    /// `initialized` is sticky: a listener added after the SDK became ready still hears of it, once.
    var replayRule: ReplayRule {
        switch self {
        case .initialized: .sticky
        case .flagsChanged, .error: .none
        }
    }

    /// Announces readiness with where the flags came from.
    static func readyPayload(_ readiness: Readiness, config: FlagSet?) -> FlagEventPayload {
        .initialized(InitializedPayload(readiness))
    }

    /// Announces the keys of the flags that differ; nothing when no flag did (only the `$schema`,
    /// the set's metadata or an evaluator no flag uses changed).
    static func configUpdatedPayload(_ update: ConfigUpdate<FlagSet>) -> FlagEventPayload? {
        let changedKeys = update.current.changedKeys(since: update.previous)
        return changedKeys.isEmpty ? nil : .flagsChanged(FlagsChangedPayload(changedKeys: changedKeys))
    }
}
