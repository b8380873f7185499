import SDKEventBusCore

/// The payload of ``FlagEvent/initialized``: where the flags that made the SDK ready came from.
struct InitializedPayload: Sendable, Equatable, Codable {
    /// A live fetch, the cache, the flags bundled with the app, or none (degraded).
    var source: ConfigSource
    /// For a degraded start, why, in words.
    var error: String?

    init(source: ConfigSource, error: String? = nil) {
        self.source = source
        self.error = error
    }

    /// The payload that announces `readiness`.
    init(_ readiness: Readiness) {
        self.init(source: readiness.source, error: readiness.error.map { "\($0)" })
    }
}

extension InitializedPayload: TypedPayload {
    static var event: FlagEvent { .initialized }

    init?(_ value: FlagEventPayload) {
        guard case .initialized(let payload) = value else { return nil }
        self = payload
    }

    var payloadValue: FlagEventPayload { .initialized(self) }
}
