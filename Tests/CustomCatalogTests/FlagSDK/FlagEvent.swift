import SDKEventBusConfig

/// The events of a feature-flag SDK, declared outside the package the way an SDK author declares
/// theirs.
///
/// The raw values are the wire names the SDK uses on other platforms (the OpenFeature
/// provider events); `initialized` is sticky: a listener added after it still hears of it, once.
enum FlagEvent: String, LifecycleCatalog {
    case initialized
    case flagsChanged = "flags.changed"
    case error
    case stale
    case reconciling
    case contextChanged = "context.changed"

    typealias Payload = FlagEventPayload
    typealias Config = FlagSet

    var replayRule: ReplayRule { self == .initialized ? .sticky : .none }

    static func readyPayload(_ readiness: Readiness, config: FlagSet?) -> FlagEventPayload {
        let error = readiness.error.map { "\($0)" }
        return .initialized(
            InitializedPayload(source: readiness.source, error: error, flagCount: config?.flags.count ?? 0))
    }

    /// Announces the keys of the flags that differ; nothing when no flag did.
    static func configUpdatedPayload(_ update: ConfigUpdate<FlagSet>) -> FlagEventPayload? {
        let changedKeys = update.current.changedKeys(since: update.previous)
        return changedKeys.isEmpty ? nil : .flagsChanged(FlagsChangedPayload(changedKeys: changedKeys))
    }
}
