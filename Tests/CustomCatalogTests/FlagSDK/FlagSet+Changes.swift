extension FlagSet {
    /// The keys of the flags added, removed or changed since `previous`, sorted: what
    /// ``FlagEvent/flagsChanged`` names.
    ///
    /// A flag changed when any of its fields differs, or when a shared evaluator its targeting uses
    /// (`{"$ref": "name"}`) differs: it may then resolve differently. A change to the `$schema`, the
    /// set's metadata or an evaluator no flag uses changes no flag.
    ///
    /// - Parameter previous: The flag set before; `nil` (a degraded start) counts every flag as added.
    /// - Returns: The keys.
    func changedKeys(since previous: FlagSet?) -> [String] {
        guard let previous else { return flags.keys.sorted() }
        let before = previous.evaluators ?? [:]
        let after = evaluators ?? [:]
        let changedEvaluators = Set(before.keys).union(after.keys).filter { before[$0] != after[$0] }
        return Set(flags.keys).union(previous.flags.keys).filter { key in
            guard let flag = flags[key], let old = previous.flags[key] else { return true }
            if flag != old { return true }
            return !changedEvaluators.isEmpty && !(flag.targeting?.references ?? []).isDisjoint(with: changedEvaluators)
        }.sorted()
    }
}
