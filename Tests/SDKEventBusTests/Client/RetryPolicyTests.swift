import Testing

@testable import SDKEventBus
@testable import SDKEventBusCore

@Suite struct RetryPolicyTests {
    let policy = RetryPolicy(initialDelay: .seconds(1), multiplier: 2, maximumDelay: .seconds(30), jitter: 0)

    @Test func delayGrowsExponentiallyUntilTheCap() {
        let delays = (1...8).map { policy.delay(afterFailures: $0, random: 0.5) }
        #expect(delays == [1, 2, 4, 8, 16, 30, 30, 30].map { Duration.seconds($0) })
    }

    @Test func jitterShortensTheDelayByAtMostItsFraction() {
        let jittered = RetryPolicy(initialDelay: .seconds(10), maximumDelay: .seconds(10), jitter: 0.2)
        #expect(jittered.delay(afterFailures: 1, random: 0) == .seconds(10))
        #expect(jittered.delay(afterFailures: 1, random: 0.5) == .seconds(9))
        #expect(jittered.delay(afterFailures: 1, random: 0.999_999) > .seconds(8))
        for _ in 0..<1_000 {
            let delay = jittered.delay(afterFailures: 3, random: .random(in: 0..<1))
            #expect(delay > .seconds(8) && delay <= .seconds(10))
        }
    }

    @Test func thousandsOfFailuresStayAtTheCapWithoutOverflow() {
        #expect(policy.delay(afterFailures: 1_000, random: 0) == .seconds(30))
        #expect(policy.delay(afterFailures: .max, random: 0) == .seconds(30))
    }

    @Test func delayThatCannotGrowReturnsAtOnceForAnyFailureCount() {
        let constant = RetryPolicy(initialDelay: .seconds(3), multiplier: 1, maximumDelay: .seconds(30), jitter: 0)
        #expect(constant.delay(afterFailures: .max, random: 0) == .seconds(3))
    }

    @Test func noDelayIsShorterThanTheFloorWhateverTheSettings() {
        let zero = RetryPolicy(initialDelay: .zero, multiplier: 1, maximumDelay: .zero, jitter: 1)
        #expect(zero.initialDelay == RetryPolicy.minimumDelay)
        #expect(zero.maximumDelay == RetryPolicy.minimumDelay)
        for failures in [1, 2, 100, .max] {
            #expect(zero.delay(afterFailures: failures, random: 0.999) == RetryPolicy.minimumDelay)
        }
        let jittered = RetryPolicy(initialDelay: .milliseconds(100), maximumDelay: .seconds(1), jitter: 1)
        #expect(jittered.delay(afterFailures: 1, random: 0.999_999) == RetryPolicy.minimumDelay)
    }

    @Test func nonFiniteSettingsFallBackToDefaultsInsteadOfTrapping() {
        for multiplier in [Double.infinity, .nan] {
            let policy = RetryPolicy(
                initialDelay: .seconds(1), multiplier: multiplier, maximumDelay: .seconds(30), jitter: .nan)
            #expect(policy.multiplier == 2 && policy.jitter == 0.2)
            #expect(policy.delay(afterFailures: 100, random: .nan) == .seconds(30))
        }
        let huge = RetryPolicy(initialDelay: .seconds(1), multiplier: 1e300, maximumDelay: .seconds(Int64.max))
        #expect(huge.maximumDelay == .seconds(86_400))
        #expect(huge.delay(afterFailures: 5, random: 0) == .seconds(86_400))
    }

    @Test func outOfRangeSettingsAreClamped() {
        let clamped = RetryPolicy(initialDelay: .seconds(-1), multiplier: 0.5, maximumDelay: .seconds(5), jitter: 3)
        #expect(clamped.initialDelay == RetryPolicy.minimumDelay && clamped.multiplier == 1 && clamped.jitter == 1)
    }
}
