import Foundation

/// Many simulated sequences from one base seed.
///
/// Sequence `i` plays seed `base + i`. The first that breaks a promise is shrunk and reported; a
/// census counts, for one invariant at a time, which sequences break it while every other is
/// tolerated.
@available(macOS 15, iOS 18, tvOS 18, watchOS 11, visionOS 2, *)
enum SimulationCampaign {
    struct Report: CustomStringConvertible {
        var baseSeed: UInt64
        var sequences = 0
        var steps = 0
        var jobs = 0
        var fetches = 0
        var seconds = 0.0
        /// The first failure, shrunk, with the seed of its sequence.
        var failure: (seed: UInt64, shrunk: LifecycleSimulation.Failure, steps: Int)?
        /// For each invariant broken, the sequences (by index) that broke it.
        var census: [Invariant: [Int]] = [:]

        var description: String {
            var text =
                "lifecycle simulation: \(sequences) sequences, \(steps) operations, \(jobs) jobs, \(fetches) fetches "
                + "in \(String(format: "%.1f", seconds)) s, base seed \(baseSeed) (SDKEVENTBUS_SIM_SEED)"
            for (invariant, indices) in census.sorted(by: { $0.value.first! < $1.value.first! }) {
                text +=
                    "\n  \(invariant): \(indices.count) sequence(s), the first \(indices.prefix(10).map(String.init).joined(separator: ", "))"
            }
            if let failure {
                text += """

                    sequence seed \(failure.seed) broke a promise after \(failure.steps) operations; shrunk \
                    (replay it alone with SDKEVENTBUS_SIM_SEED=\(failure.seed) SDKEVENTBUS_SIM_SEQUENCES=1):
                    \(failure.shrunk)
                    """
            }
            return text
        }
    }

    /// Plays `sequences` sequences from `baseSeed`.
    ///
    /// - Parameters:
    ///   - baseSeed: Sequence `i` plays seed `baseSeed + i`.
    ///   - sequences: How many.
    ///   - only: For a census of one invariant: every other is tolerated, and every sequence plays.
    ///   - stopping: Whether the first failure ends the campaign; otherwise every sequence plays,
    ///     and the census counts which invariant each broke first.
    /// - Returns: The figures, the census, and the first failure, shrunk.
    static func run(baseSeed: UInt64, sequences: Int, only: Invariant? = nil, stopping: Bool = true) -> Report {
        let tolerated = only.map { Set(Invariant.allCases).subtracting([$0]) } ?? []
        let start = Date()
        var report = Report(baseSeed: baseSeed)
        for index in 0..<sequences {
            let seed = baseSeed &+ UInt64(index)
            var generator = SimulationGenerator(seed: seed)
            let settings = generator.settings()
            let (result, hits) = LifecycleSimulation.play(settings, tolerating: tolerated) { generator.next($0) }
            report.sequences += 1
            for invariant in hits.keys where only == nil { report.census[invariant, default: []].append(index) }
            switch result {
            case .success(let figures):
                report.steps += figures.steps
                report.jobs += figures.jobs
                report.fetches += figures.fetches
            case .failure(let failure):
                report.steps += failure.operations.count
                report.census[failure.violation.invariant, default: []].append(index)
                if report.failure == nil {
                    report.failure = (seed, shrink(failure, tolerating: tolerated), failure.operations.count)
                }
            }
            if stopping, only == nil, report.failure != nil { break }
        }
        report.seconds = Date().timeIntervalSince(start)
        return report
    }

    /// The shortest sequence found that breaks the same invariant, replayed for its report.
    static func shrink(_ failure: LifecycleSimulation.Failure, tolerating tolerated: Set<Invariant>)
        -> LifecycleSimulation.Failure
    {
        let invariant = failure.violation.invariant
        func replay(_ operations: [SimulationOperation]) -> LifecycleSimulation.Failure? {
            guard
                case .failure(let failure) = LifecycleSimulation.replay(
                    failure.settings, operations, tolerating: tolerated),
                failure.violation.invariant == invariant
            else { return nil }
            return failure
        }
        let shortest = SimulationShrinker.shrink(failure.operations) { replay($0) != nil }
        return replay(shortest) ?? failure
    }
}
