import Foundation
import SDKEventBus
import SDKEventBusTesting

/// Prints a timeline with relative timestamps, and lets the demo wait for lifecycle steps.
final class Timeline: Sendable {
    private let start = Date()
    private let steps: AsyncStream<LifecycleDiagnostic>
    private let sink: AsyncStream<LifecycleDiagnostic>.Continuation

    init() {
        (steps, sink) = AsyncStream.makeStream()
    }

    func log(_ who: String, _ message: String) {
        let elapsed = Date().timeIntervalSince(start)
        print(String(format: "+%.3fs  %@  %@", elapsed, who.padding(toLength: 3, withPad: " ", startingAt: 0), message))
    }

    /// A lifecycle configuration, for any configuration type, that prints each step as it happens.
    func configuration<Config>(
        refresh: TimeInterval? = 1,
        cache: (any ConfigCache<Config>)? = nil,
        readinessPolicy: ReadinessPolicy = .cachedOrLive,
        describe: @escaping @Sendable (LifecycleDiagnostic) -> String = \.description
    ) -> LifecycleConfiguration<Config> {
        LifecycleConfiguration(
            refreshInterval: refresh,
            retryPolicy: RetryPolicy(initialDelay: 0.15, jitter: 0),
            readinessPolicy: readinessPolicy,
            diagnostics: { [self] step in
                log("sdk", describe(step))
                sink.yield(step)
            },
            cache: cache
        )
    }

    /// Waits for the SDK's lifecycle to reach a step (each step is printed as it happens).
    func follow(until isDone: (LifecycleDiagnostic) -> Bool) async {
        for await step in steps where isDone(step) { return }
    }
}

func applied(_ change: ConfigChange) -> (LifecycleDiagnostic) -> Bool {
    { if case .configApplied(change) = $0 { true } else { false } }
}

func rejected(_ step: LifecycleDiagnostic) -> Bool {
    if case .fetchFailed(let error, _, _) = step { error is JSONDecodingError } else { false }
}

/// The configurations the demo's CDN serves.
enum DemoConfigs {
    static let first = ProjectConfig(
        accountId: "10035569",
        project: .init(id: "10034190", name: "Demo project"),
        experiences: [
            .init(
                id: "100334665",
                key: "checkout-button",
                name: "Checkout button",
                variations: [
                    .init(id: "1003142550", key: "original", name: "Original", trafficAllocation: 50),
                    .init(id: "1003142551", key: "green", name: "Green button", trafficAllocation: 50),
                ]
            )
        ],
        goals: [.init(id: "100322784", key: "purchase", name: "Purchase", type: "revenue")]
    )

    static let updated: ProjectConfig = {
        var config = first
        config.experiences[0].variations[0].trafficAllocation = 20
        config.experiences[0].variations[1].trafficAllocation = 80
        return config
    }()

    static func json(_ config: ProjectConfig) -> Data {
        let encoder = JSONEncoder()
        encoder.outputFormatting = .sortedKeys
        return (try? encoder.encode(config)) ?? Data()
    }

    /// The first configuration cut short: valid HTTP, malformed JSON.
    static let truncated = Data(String(decoding: json(first), as: UTF8.self).prefix(60).utf8)

    static func split(_ config: ProjectConfig?) -> String {
        guard let config else { return "none" }
        return config.experiences[0].variations.map { "\($0.key) \(Int($0.trafficAllocation))%" }.joined(
            separator: " / ")
    }
}
