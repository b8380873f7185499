#if DEBUG || SDKEVENTBUS_TEST_HOOKS
    /// Tests waiting until enough `off` or `flush` callers wait on a lane: the state behind
    /// ``BusStorage/waitForWaiters(_:_:lane:)``.
    ///
    /// A test that must know a caller waits before it lets a pass go on, or cancels the caller,
    /// installs a watcher. The watchers live in the bus's ``BusStorage/State``, guarded by its lock,
    /// rather than in each ``DeliveryLane``, so that the lanes carry nothing for tests: there are none
    /// unless a test installs one, and the engine looks for them only where a caller starts to wait,
    /// never on the fire → delivery path.
    struct WaiterWatchers {
        /// The callers a test can wait for.
        enum Kind: Sendable {
            case off, flush
        }

        /// The tests waiting: each with the lane, the callers it counts and how many must wait.
        private var watchers: [(lane: Int, kind: Kind, count: Int, continuation: CheckedContinuation<Void, Never>)] = []

        /// Whether no test is watching.
        var isEmpty: Bool { watchers.isEmpty }

        /// How many callers of `kind` wait on `lane`.
        static func count(_ kind: Kind, on lane: DeliveryLane) -> Int {
            switch kind {
            case .off: lane.offWaiterCount
            case .flush: lane.flushWaiterCount
            }
        }

        /// Watches until at least `count` callers of `kind` wait on lane `lane`.
        ///
        /// - Parameters:
        ///   - lane: The lane's number.
        ///   - kind: The callers to count.
        ///   - count: How many must wait.
        ///   - continuation: What ``takeSatisfied(lanes:)`` returns to resume once they do.
        mutating func add(lane: Int, kind: Kind, count: Int, continuation: CheckedContinuation<Void, Never>) {
            watchers.append((lane, kind, count, continuation))
        }

        /// Takes the watchers that the callers now waiting satisfy: call it whenever a caller starts
        /// to wait, the only change that can satisfy one.
        ///
        /// - Parameter lanes: The bus's lanes, indexed by lane number.
        /// - Returns: Their continuations, to resume after unlocking.
        mutating func takeSatisfied(lanes: [DeliveryLane]) -> [CheckedContinuation<Void, Never>] {
            var satisfied: [CheckedContinuation<Void, Never>] = []
            var index = 0
            while index < watchers.count {
                let watcher = watchers[index]
                if watcher.count <= Self.count(watcher.kind, on: lanes[watcher.lane]) {
                    satisfied.append(watcher.continuation)
                    watchers.remove(at: index)
                } else {
                    index += 1
                }
            }
            return satisfied
        }
    }
#endif
