import Foundation

/// Many simulated sequences from one base seed.
///
/// Sequence `i` plays seed `base + i`. The first that breaks a promise is shrunk and reported; a
/// census counts which sequences break each invariant, tolerating some or all of them.
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
                // Every index with SDKEVENTBUS_SIM_INDICES, to compare two censuses.
                let shown =
                    ProcessInfo.processInfo.environment["SDKEVENTBUS_SIM_INDICES"] == nil
                    ? indices.prefix(10) : indices[...]
                text +=
                    "\n  \(invariant): \(indices.count) sequence(s), the first \(shown.map(String.init).joined(separator: ", "))"
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
    ///   - tolerated: Invariants counted rather than failed on; the census counts the sequences
    ///     that broke each.
    ///   - stopping: Whether the first failure ends the campaign; otherwise every sequence plays,
    ///     and the census counts which invariant each broke first.
    ///   - counts: Which failures count (a census of one cause among several that break one
    ///     invariant); the others pass.
    /// - Returns: The figures, the census, and the first failure, shrunk.
    static func run(
        baseSeed: UInt64, sequences: Int, tolerating tolerated: Set<Invariant> = [], stopping: Bool = true,
        counts: (LifecycleSimulation.Failure) -> Bool = { _ in true }
    ) -> Report {
        let start = Date()
        var report = Report(baseSeed: baseSeed)
        for index in 0..<sequences {
            let seed = baseSeed &+ UInt64(index)
            var generator = SimulationGenerator(seed: seed)
            let settings = generator.settings()
            let (result, hits) = LifecycleSimulation.play(settings, tolerating: tolerated) { generator.next($0) }
            report.sequences += 1
            for invariant in hits.keys { report.census[invariant, default: []].append(index) }
            switch result {
            case .success(let figures):
                report.steps += figures.steps
                report.jobs += figures.jobs
                report.fetches += figures.fetches
            case .failure(let failure) where !counts(failure):
                report.steps += failure.operations.count
            case .failure(let failure):
                report.steps += failure.operations.count
                report.census[failure.violation.invariant, default: []].append(index)
                if report.failure == nil {
                    report.failure = (
                        seed, shrink(failure, tolerating: tolerated, counts: counts), failure.operations.count
                    )
                }
            }
            if stopping, report.failure != nil { break }
        }
        report.seconds = Date().timeIntervalSince(start)
        return report
    }

    /// The shortest sequence found that breaks the same invariant, replayed for its report.
    static func shrink(
        _ failure: LifecycleSimulation.Failure, tolerating tolerated: Set<Invariant>,
        counts: (LifecycleSimulation.Failure) -> Bool = { _ in true }
    ) -> LifecycleSimulation.Failure {
        let invariant = failure.violation.invariant
        func replay(_ settings: SimulationSettings, _ operations: [SimulationOperation]) -> LifecycleSimulation.Failure?
        {
            guard case .failure(let failure) = LifecycleSimulation.replay(settings, operations, tolerating: tolerated),
                failure.violation.invariant == invariant, counts(failure)
            else { return nil }
            return failure
        }
        let shortest = SimulationShrinker.shrink(failure.settings, failure.operations) { replay($0, $1) != nil }
        return replay(shortest.0, shortest.1) ?? failure
    }
}
