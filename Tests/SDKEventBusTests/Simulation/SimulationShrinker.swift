/// Shrinks a failing sequence to a shortest one that still fails the same way: delta debugging
/// (Zeller's ddmin) over the operations, each remaining operation made as simple as it goes, then
/// each setting put back to its default where the failure stays.
///
/// Every candidate is replayed from the start, deterministically (the same schedule seed, so the
/// same executor choices), and kept only when it breaks the same invariant.
enum SimulationShrinker {
    /// The shortest sequence and the plainest settings found that still `fail`.
    ///
    /// - Parameters:
    ///   - settings: The failing sequence's settings.
    ///   - operations: Its operations.
    ///   - fails: Replays a candidate; whether it still fails the same way.
    /// - Returns: The settings and operations of the shortest failing sequence found.
    static func shrink(
        _ settings: SimulationSettings, _ operations: [SimulationOperation],
        fails: (SimulationSettings, [SimulationOperation]) -> Bool
    ) -> (SimulationSettings, [SimulationOperation]) {
        var operations = shrink(operations) { fails(settings, $0) }
        var settings = settings
        for plainer in plainerSettings(than: settings) where fails(plainer(settings), operations) {
            settings = plainer(settings)
        }
        operations = shrink(operations) { fails(settings, $0) }
        return (settings, operations)
    }

    /// Each setting back to its default, one at a time.
    private static func plainerSettings(
        than settings: SimulationSettings
    ) -> [(SimulationSettings) -> SimulationSettings] {
        let plain = SimulationSettings()
        func reset<Value>(_ field: WritableKeyPath<SimulationSettings, Value>) -> (SimulationSettings) ->
            SimulationSettings
        {
            { settings in
                var settings = settings
                settings[keyPath: field] = plain[keyPath: field]
                return settings
            }
        }
        return [
            reset(\.clock), reset(\.refreshInterval), reset(\.timeToLive), reset(\.retry), reset(\.policy),
            reset(\.fetchesOnStart), reset(\.cache), reset(\.initialConfig), reset(\.lowPowerAtLaunch),
            reset(\.fetchesIgnoreCancellation), reset(\.cacheIgnoresCancellation), reset(\.probesAnnouncements),
            reset(\.composition),
        ]
    }

    /// The shortest subsequence of `operations` found that still `fails`.
    ///
    /// - Parameters:
    ///   - operations: A sequence that fails.
    ///   - fails: Replays a candidate; whether it still fails the same way.
    /// - Returns: A 1-minimal sequence: removing any one operation makes it pass.
    static func shrink(
        _ operations: [SimulationOperation], fails: ([SimulationOperation]) -> Bool
    ) -> [SimulationOperation] {
        var current = operations
        var chunks = 2
        while current.count >= 2 {
            let size = (current.count + chunks - 1) / chunks
            var reduced = false
            for start in stride(from: 0, to: current.count, by: size) {
                let candidate = Array(current[..<start] + current[min(start + size, current.count)...])
                if fails(candidate) {
                    current = candidate
                    chunks = max(chunks - 1, 2)
                    reduced = true
                    break
                }
            }
            if !reduced {
                guard size > 1 else { break }
                chunks = min(chunks * 2, current.count)
            }
        }
        for index in current.indices.reversed() {
            for simpler in simplifications(of: current[index]) {
                var candidate = current
                candidate[index] = simpler
                if fails(candidate) {
                    current = candidate
                    break
                }
            }
        }
        return current
    }

    /// Simpler forms of an operation, simplest first.
    private static func simplifications(of operation: SimulationOperation) -> [SimulationOperation] {
        switch operation {
        case .refreshNow(let callers) where callers > 1: [.refreshNow(callers: 1)]
        case .ready(let callers, let timeout) where callers > 1 || timeout != nil:
            [.ready(callers: 1, timeout: nil), .ready(callers: 1, timeout: timeout)]
        case .readConfig(let times) where times > 1: [.readConfig(times: 1), .readConfig(times: 2)]
        case .answerFetch(let index, let answer) where index > 0: [.answerFetch(0, answer)]
        case .cancelReady(let index) where index > 0: [.cancelReady(0)]
        case .cancelRefresh(let index) where index > 0: [.cancelRefresh(0)]
        default: []
        }
    }
}
