import Foundation
import SDKEventBusConfig
import Testing

/// The shortest sequences the simulation found breaking a promise, each kept as the test of that
/// promise, named for it and for the seed of the sequence that found it.
///
/// Each replays its settings and operations exactly, every invariant checked. Each failed on the
/// lifecycle it was found on: 1.0.0's, or an earlier round's with that round's fix reverted.
@Suite(.timeLimit(.minutes(1))) struct LifecycleSimulationSeedTests {
    /// Replays a sequence and records the promise it breaks, if any.
    private func replay(_ settings: SimulationSettings, _ operations: [SimulationOperation]) async {
        guard #available(macOS 26.4, iOS 26.4, tvOS 26.4, watchOS 26.4, visionOS 26.4, *) else { return }
        let result = await offThePool { LifecycleSimulation.replay(settings, operations) }
        if case .failure(let failure) = result { Issue.record("\(failure)") }
    }

    // MARK: Reading the configuration is not a network request

    @Test
    func aStaleReadWaitsForTheRetryBackoffSeed1011() async {
        await replay(
            SimulationSettings(timeToLive: 0.0, schedule: 18_057_527_142_187_986_736),
            [
                .answerFetch(0, .sameConfig), .readConfig(times: 1), .answerFetch(0, .failure(retryAfter: nil)),
                .readConfig(times: 1),
            ])
    }

    @Test
    func aStaleReadWaitsATenthOfASecondAfterTheLastFetchSeed1013() async {
        await replay(
            SimulationSettings(timeToLive: 0.0, schedule: 14_871_048_477_099_410_212),
            [.answerFetch(0, .newConfig), .readConfig(times: 1)])
    }

    @Test
    func aStaleReadIsHeldByLowPowerModeOnceReadySeed1020() async {
        await replay(
            SimulationSettings(timeToLive: 1.0, schedule: 1_836_909_780_686_888_136),
            [.lowPowerMode(true), .answerFetch(0, .sameConfig), .advance(by: 1.0), .readConfig(times: 1)])
    }

    // MARK: refreshNow() always runs

    @Test
    func refreshNowFetchesWhilePausedBeforeTheFirstRefreshSeed1071() async {
        await replay(
            SimulationSettings(
                composition: .clientOverSDKStore, fetchesOnStart: false, lowPowerAtLaunch: true,
                schedule: 4_583_430_885_115_733_321),
            [.setConfig(.live, age: 3.0), .refreshNow(callers: 1)])
    }

    @Test
    func refreshNowDoesNotWaitForTheCacheSeed1000() async {
        await replay(
            SimulationSettings(cache: .unreadable, schedule: 3_616_392_152_730_960_348),
            [.refreshNow(callers: 1)])
    }

    // MARK: A configuration the SDK set ages like a fetched one

    @Test
    func aConfigurationTheSDKSetAgesFromWhenItWasFetchedSeed1030() async {
        await replay(
            SimulationSettings(
                composition: .clientOverSDKStore, timeToLive: 0.2, fetchesOnStart: false,
                schedule: 6_263_081_105_187_764_080),
            [.setConfig(.cache, age: 500.0), .readConfig(times: 1)])
    }

    @Test
    func aForegroundWithAFreshConfigurationTheSDKSetIsSkippedSeed1062() async {
        await replay(
            SimulationSettings(
                composition: .clientOverSDKStore, timeToLive: 1.0, fetchesOnStart: false,
                schedule: 8_706_638_153_371_823_513),
            [.setConfig(.live, age: nil), .foreground])
    }

    @Test
    func aForegroundWithAConfigurationOfUnknownAgeRequestsARefreshSeed1035() async {
        await replay(
            SimulationSettings(timeToLive: 10.0, initialConfig: true, schedule: 15_836_658_121_503_639_635),
            [.answerFetch(0, .failure(retryAfter: 2.0)), .foreground])
    }

    // MARK: Only the side that created a store ends it

    @Test
    func droppingAClientOverTheSDKsStoreLeavesTheStoreAsItWasSeed1001() async {
        await replay(
            SimulationSettings(composition: .clientOverSDKStore, schedule: 2_664_814_142_600_072_409), [.drop])
    }

    // MARK: A clock that ignores cancellation delays nothing

    @Test
    func aTimedReadyReturnsOnDecisionOnAClockThatIgnoresCancellationSeed1002() async {
        await replay(
            SimulationSettings(clock: .sdkClockIgnoringCancellation, schedule: 15_263_053_824_884_936_646),
            [.ready(callers: 1, timeout: 2.0)])
    }

    // MARK: A retry policy keeps its floor however it was set

    @Test
    func theRetryDelayKeepsItsFloorWhenThePolicysVarsAreNotANumberSeed1004() async {
        await replay(
            SimulationSettings(
                retry: .init(initialDelay: .nan, multiplier: 2.0, maximumDelay: 30.0, jitter: 0.0, throughVars: true),
                schedule: 9_050_848_034_385_175_976),
            [.answerFetch(0, .failure(retryAfter: nil))])
    }

    // MARK: Every decision is a diagnostic step

    @Test
    func aDemandThatStartsAFetchIsReportedSeed1001() async {
        await replay(
            SimulationSettings(schedule: 2_664_814_142_600_072_409),
            [.answerFetch(0, .sameConfig), .refreshNow(callers: 1)])
    }

    // MARK: Found by the simulation beyond the outside review

    @Test
    func aReadyThatWaitsNotAtAllThrowsTheDecidedOutcomeSeed1111() async {
        await replay(
            SimulationSettings(schedule: 12_229_116_608_351_884_975), [.shutdown, .ready(callers: 2, timeout: .nan)])
    }

    /// The cache answered after the SDK set a live configuration, and put its older one back.
    @Test
    func aCachedConfigurationNeverReplacesALiveOneSeed1020() async {
        await replay(
            SimulationSettings(
                composition: .clientOverSDKStore, cache: .config(age: 100.0), schedule: 1_836_909_780_686_888_136),
            [.setConfig(.live, age: 3.0), .answerCacheLoad])
    }

    /// Once the cache answered, the lifecycle read again the age of a configuration it had seen
    /// committed, by the store's wall clock: on any other clock (an SDK's, a test's) its age restarted.
    @Test
    func aConfigurationKeepsTheAgeItWasCommittedWithOnceTheCacheAnswersSeed2475() async {
        await replay(
            SimulationSettings(timeToLive: 1.0, cache: .config(age: nil), schedule: 14_466_347_098_788_192_986),
            [.refreshNow(callers: 1), .answerFetch(0, .newConfig), .advance(by: 10.0), .answerCacheLoad, .foreground])
    }

    // MARK: Earlier rounds' defects, found again with their fixes reverted

    /// 349619a: low power mode reported at launch held the first fetch, and so readiness.
    @Test func lowPowerModeAtLaunchNeverHoldsTheFirstFetchSeed1009() async {
        await replay(SimulationSettings(lowPowerAtLaunch: true, schedule: 11_213_114_753_420_841_818), [])
    }

    /// 77f49e5: a fetch in flight when readiness failed was still applied and reported.
    @Test func failReadinessDuringAFetchDiscardsTheFetchSeed1114() async {
        await replay(
            SimulationSettings(schedule: 7_865_915_657_108_963_088),
            [.failReadiness(viaClient: true), .answerFetch(0, .newConfig)])
    }

    /// 084fe05: a `ready()` arriving during the announcement returned before the ready event.
    @Test func readyReturnsOnlyAfterTheReadyEventWasFiredSeed1010() async {
        await replay(
            SimulationSettings(
                cache: .config(age: nil), probesAnnouncements: true, schedule: 9_980_164_895_396_532_182),
            [.answerCacheLoad])
    }
}
