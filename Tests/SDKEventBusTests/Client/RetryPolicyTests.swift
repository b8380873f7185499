import Foundation
import Testing

@testable import SDKEventBus
@testable import SDKEventBusConfig
@testable import SDKEventBusCore
@testable import SDKEventBusWire

@Suite struct RetryPolicyTests {
    let policy = RetryPolicy(initialDelay: 1, multiplier: 2, maximumDelay: 30, jitter: 0)

    @Test func delayGrowsExponentiallyUntilTheCap() {
        let delays = (1...8).map { policy.delay(afterFailures: $0, random: 0.5) }
        #expect(delays == [1, 2, 4, 8, 16, 30, 30, 30].map { TimeInterval($0) })
    }

    @Test func jitterShortensTheDelayByAtMostItsFraction() {
        let jittered = RetryPolicy(initialDelay: 10, maximumDelay: 10, jitter: 0.2)
        #expect(jittered.delay(afterFailures: 1, random: 0) == 10)
        #expect(jittered.delay(afterFailures: 1, random: 0.5) == 9)
        #expect(jittered.delay(afterFailures: 1, random: 0.999_999) > 8)
        for _ in 0..<1_000 {
            let delay = jittered.delay(afterFailures: 3, random: .random(in: 0..<1))
            #expect(delay > 8 && delay <= 10)
        }
    }

    @Test func thousandsOfFailuresStayAtTheCapWithoutOverflow() {
        #expect(policy.delay(afterFailures: 1_000, random: 0) == 30)
        #expect(policy.delay(afterFailures: .max, random: 0) == 30)
    }

    @Test func delayThatCannotGrowReturnsAtOnceForAnyFailureCount() {
        let constant = RetryPolicy(initialDelay: 3, multiplier: 1, maximumDelay: 30, jitter: 0)
        #expect(constant.delay(afterFailures: .max, random: 0) == 3)
    }

    @Test func noDelayIsShorterThanTheFloorWhateverTheSettings() {
        let zero = RetryPolicy(initialDelay: .zero, multiplier: 1, maximumDelay: .zero, jitter: 1)
        #expect(zero.initialDelay == RetryPolicy.minimumDelay)
        #expect(zero.maximumDelay == RetryPolicy.minimumDelay)
        for failures in [1, 2, 100, .max] {
            #expect(zero.delay(afterFailures: failures, random: 0.999) == RetryPolicy.minimumDelay)
        }
        let jittered = RetryPolicy(initialDelay: 0.1, maximumDelay: 1, jitter: 1)
        #expect(jittered.delay(afterFailures: 1, random: 0.999_999) == RetryPolicy.minimumDelay)
    }

    @Test func nonFiniteSettingsFallBackToDefaultsInsteadOfTrapping() {
        for multiplier in [Double.infinity, .nan] {
            let policy = RetryPolicy(
                initialDelay: 1, multiplier: multiplier, maximumDelay: 30, jitter: .nan)
            #expect(policy.multiplier == 2 && policy.jitter == 0.2)
            #expect(policy.delay(afterFailures: 100, random: .nan) == 30)
        }
        let huge = RetryPolicy(initialDelay: 1, multiplier: 1e300, maximumDelay: .infinity)
        #expect(huge.maximumDelay == 86_400)
        #expect(huge.delay(afterFailures: 5, random: 0) == 86_400)
    }

    @Test func delaysThatAreNotNumbersFallBackToDefaultsInsteadOfSpinning() {
        let policy = RetryPolicy(initialDelay: .nan, multiplier: 2, maximumDelay: .nan, jitter: 0)
        #expect(policy.initialDelay == 1 && policy.maximumDelay == 86_400)
        #expect(policy.delay(afterFailures: 1, random: 0) == 1)
        #expect(policy.delay(afterFailures: 3, random: 0) == 4)
    }

    @Test func outOfRangeSettingsAreClamped() {
        let clamped = RetryPolicy(initialDelay: -1, multiplier: 0.5, maximumDelay: 5, jitter: 3)
        #expect(clamped.initialDelay == RetryPolicy.minimumDelay && clamped.multiplier == 1 && clamped.jitter == 1)
    }
}
