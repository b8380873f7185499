import Foundation
import SDKEventBusConfig

/// Random settings and operations from a seed: what the SDK, the app, the network, the disk and
/// time do next.
///
/// It picks each operation as the sequence goes, from what the simulation shows (a fetch waiting
/// for an answer, a client still held), so that most operations do something; a replay plays the
/// recorded operations instead, and any subsequence of them still runs.
struct SimulationGenerator {
    private var random: SplitMix64
    private var remaining = 0

    init(seed: UInt64) {
        random = SplitMix64(seed: seed)
    }

    private mutating func chance(_ probability: Double) -> Bool {
        Double.random(in: 0..<1, using: &random) < probability
    }

    private mutating func pick<T>(_ values: [T]) -> T {
        values[Int.random(in: 0..<values.count, using: &random)]
    }

    /// Picks one of `choices`, each as likely as its weight; a weight of zero never.
    private mutating func weighted<T>(_ choices: [(Double, T)]) -> T {
        var point = Double.random(in: 0..<choices.reduce(0) { $0 + $1.0 }, using: &random)
        for (weight, value) in choices {
            if point < weight { return value }
            point -= weight
        }
        return choices.last { $0.0 > 0 }!.1
    }

    /// The composition and settings of one simulated SDK.
    mutating func settings() -> SimulationSettings {
        var settings = SimulationSettings()
        settings.composition = weighted([
            (3, .wholeClient), (1.5, .wholeClientOnService), (1.5, .storeByHand), (4, .clientOverSDKStore),
        ])
        settings.clock = weighted([(4, .testClock), (3, .sdkClock), (3, .sdkClockIgnoringCancellation)])
        settings.refreshInterval = pick([nil, nil, 0.5, 1, 5, 60, 300])
        settings.timeToLive = chance(0.5) ? pick([0, 0.05, 0.2, 1, 10, 30, .nan, -1]) : nil
        if chance(0.3) {
            // Through the public vars, as an SDK may set them, unchecked by init.
            let odd: [Double] = [.nan, -1, 0, .infinity, 0.05, 1]
            settings.retry.throughVars = true
            if chance(0.7) { settings.retry.initialDelay = pick(odd) }
            if chance(0.3) { settings.retry.multiplier = pick(odd) }
            if chance(0.3) { settings.retry.maximumDelay = pick(odd) }
            // A jitter draws its fraction from the system's random numbers, which no seed sets: any
            // other value would make a replay wait a different time.
            if chance(0.3) { settings.retry.jitter = pick([.nan, 0]) }
        } else {
            settings.retry.initialDelay = pick([0.1, 0.5, 1, 2])
            settings.retry.maximumDelay = pick([5, 30])
        }
        settings.policy = weighted([(2, .live), (5, .cachedOrLive), (1.5, .degraded(after: nil))])
        if chance(0.15) { settings.policy = .degraded(after: pick([0, 0.5, 2, 5])) }
        settings.fetchesOnStart = settings.composition != .clientOverSDKStore || chance(0.4)
        if chance(0.4) {
            settings.cache = pick([
                .empty, .config(age: 5), .config(age: 100), .config(age: nil), .unreadable, .corrupt,
            ])
        }
        settings.initialConfig = chance(0.2)
        settings.lowPowerAtLaunch = chance(0.15)
        settings.fetchesIgnoreCancellation = chance(0.3)
        settings.cacheIgnoresCancellation = chance(0.3)
        settings.probesAnnouncements = chance(0.3)
        settings.schedule = random.next()
        remaining = Int.random(in: 10...60, using: &random)
        return settings
    }

    /// The next operation, from what the simulation shows; `nil` once the sequence is long enough.
    mutating func next(_ simulation: LifecycleSimulation) -> SimulationOperation? {
        let model = simulation.model
        let world = simulation.world
        let hasClient = model.hasClient
        let hasStore = simulation.settings.hasSDKStore && model.decision != .shutDown
        remaining -= 1
        if remaining < 0 {
            // The SDK ends: it shuts its client down, or lets go of it.
            guard remaining == -1, hasClient else { return nil }
            return chance(0.5) ? .shutdown : .drop
        }
        let fetchAnswer: FetchAnswer = weighted([
            (7, .newConfig), (4, .sameConfig), (5, .failure(retryAfter: nil)),
            (1, .failure(retryAfter: pick([0.05, 2, 1e6]))), (1.5, .notRetryable), (0.8, .endsReadiness),
        ])
        let client: Double = hasClient ? 1 : 0
        let store: Double = hasStore ? 1 : 0
        let fetches = Double(world.pendingFetchCount)
        return weighted([
            (world.isCacheLoadPending ? 20 : 0, .answerCacheLoad),
            (fetches > 0 ? 25 : 0, .answerFetch(Int.random(in: 0..<4, using: &random), fetchAnswer)),
            (10, .advance(by: pick([0.01, 0.05, 0.1, 0.15, 0.5, 1, 3, 10, 70, 400]))),
            (12, .advanceToNextDeadline(early: chance(0.2))),
            (8, .readConfig(times: pick([1, 2, 10, 50]))),
            (8 * client, .refreshNow(callers: pick([1, 1, 2, 3]))),
            (6, .ready(callers: pick([1, 1, 2, 3]), timeout: chance(0.5) ? nil : pick([0, 0.5, 2, 10, .nan]))),
            (2, .cancelReady(Int.random(in: 0..<4, using: &random))),
            (2 * client, .cancelRefresh(Int.random(in: 0..<4, using: &random))),
            (5 * client, .lowPowerMode(chance(0.5))),
            (2.5 * client, .pauseRefreshing),
            (2.5 * client, .resumeRefreshing),
            (5 * client, .foreground),
            (
                6 * store,
                .setConfig(weighted([(6, .live), (2.5, .cache), (1.5, .initial)]), age: pick([nil, 0, 3, 30, 500]))
            ),
            (2 * store, .setSameConfig),
            (1.5 * store, .setDegraded),
            (1 * max(client, store), .failReadiness(viaClient: hasClient && (!hasStore || chance(0.5)))),
            (1 * client, .stopFetching),
            (0.7 * client, .shutdown),
            (0.7 * client, .drop),
        ])
    }
}
