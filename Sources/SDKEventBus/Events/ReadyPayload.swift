public import SDKEventBusConfig

/// The payload announcing that the SDK is ready (``SystemEvent/ready``): how it became ready, the
/// facts ``/SDKEventBusConfig/Readiness`` gives `ready()` callers.
///
/// ```swift
/// bus.on(ReadyPayload.self) { ready in
///     if ready.source == .degraded { showDefaults() }
/// }
/// ```
///
/// Every field is optional so that an SDK that only announces readiness can fire `ReadyPayload()`;
/// its wire form is then `{}`.
public struct ReadyPayload: Sendable, Equatable, Codable {
    /// Where the configuration came from, or ``/SDKEventBusConfig/Readiness/Source/degraded``.
    public var source: Readiness.Source?
    /// How old the configuration was, in seconds, when known.
    public var configAgeSeconds: Double?
    /// For a degraded start, the error that caused it, in words.
    public var error: String?

    /// Creates the payload.
    ///
    /// - Parameters:
    ///   - source: Where the configuration came from.
    ///   - configAgeSeconds: How old the configuration was, in seconds.
    ///   - error: For a degraded start, the error that caused it.
    public init(source: Readiness.Source? = nil, configAgeSeconds: Double? = nil, error: String? = nil) {
        self.source = source
        self.configAgeSeconds = configAgeSeconds
        self.error = error
    }

    /// Creates the payload that announces `readiness`.
    ///
    /// - Parameter readiness: How the SDK became ready.
    public init(_ readiness: Readiness) {
        self.init(
            source: readiness.source,
            configAgeSeconds: readiness.configAge,
            error: readiness.error.map { "\($0)" }
        )
    }
}
