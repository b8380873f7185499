import Foundation
import SDKEventBusTesting

@testable import SDKEventBus
@testable import SDKEventBusConfig
@testable import SDKEventBusCore
@testable import SDKEventBusWire

/// A built-in client on a test clock, with its lifecycle steps and its events recorded.
///
/// The readiness, refresh and status suites share it. Nothing in it waits for real time.
struct LifecycleRig {
    let clock = TestClock()
    let steps = LifecycleRecorder()

    /// No jitter, so that delays are exact: 1 s, 2 s, 4 s … up to 30 s.
    static let retryPolicy = RetryPolicy(
        initialDelay: 1, multiplier: 2, maximumDelay: 30, jitter: 0)

    func service(
        _ script: [MockConfigFetchService.Outcome],
        afterScript: MockConfigFetchService.Outcome? = .hang
    ) -> MockConfigFetchService {
        MockConfigFetchService(script, afterScript: afterScript, clock: clock)
    }

    /// A client of `service`, its events recorded immediately as they are fired.
    func client(
        _ service: MockConfigFetchService,
        policy: ReadinessPolicy = .cachedOrLive,
        refreshInterval: TimeInterval? = 60,
        timeToLive: TimeInterval? = nil,
        cache: (any ConfigCache<ProjectConfig>)? = nil,
        initialConfig: ProjectConfig? = nil
    ) -> (client: SDKClient, events: EventRecorder<SystemEvent>) {
        let (bus, emitter) = EventBus.makeBus()
        let events = EventRecorder(bus, delivery: .immediate)
        let settings = SDKConfiguration(
            refreshInterval: refreshInterval,
            retryPolicy: Self.retryPolicy,
            readinessPolicy: policy,
            timeToLive: timeToLive,

            diagnostics: steps.handler,
            cache: cache,
            initialConfig: initialConfig
        ).on(clock)
        return (SDKClient(store: ConfigStore(emitter: emitter), configuration: settings, fetchService: service), events)
    }
}

/// A cache in memory, with a save date a test chooses: an actor, as an asynchronous store (a
/// database, a key-value service) adopts `ConfigCache`.
actor MemoryCache: ConfigCache {
    private var config: ProjectConfig?
    private var saved: Date?
    /// How many times the lifecycle saved a configuration.
    private(set) var saveCount = 0

    init(_ config: ProjectConfig? = nil, savedAt: Date? = nil) {
        self.config = config
        self.saved = savedAt
    }

    func load() throws -> ProjectConfig? { config }

    func save(_ config: ProjectConfig, body: Data) throws {
        self.config = config
        saved = Date()
        saveCount += 1
    }

    func clear() throws {
        config = nil
        saved = nil
    }

    var lastSaved: Date? { saved }
}

/// An SDK's own error that ends readiness, as an invalid SDK key would.
struct InvalidSDKKey: Error, FetchRetryAdvice, Equatable, CustomStringConvertible {
    var isRetryable: Bool { false }
    var retryAfter: TimeInterval? { nil }
    var endsReadiness: Bool { true }
    var description: String { "the SDK key is not valid" }
}
