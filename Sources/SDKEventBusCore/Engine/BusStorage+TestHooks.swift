/// What only tests use: what the storage holds, and hooks that wait until callers wait.
///
/// Nothing here is on the fire → delivery path: each hook takes the lock when a test calls it. The
/// hooks that need state of their own (a job limit, waiter watchers) exist only in the builds tests
/// run in: debug, and the release build of `Scripts/test-release.sh`, which sets
/// `SDKEVENTBUS_TEST_HOOKS`. A release build carries none of them; the rest is computed on demand,
/// and a release build drops it, as nothing calls it.
#if DEBUG || SDKEVENTBUS_TEST_HOOKS
    extension BusStorage {
        /// What the bus holds, counted where the memory is.
        ///
        /// For tests that check what returns to its baseline. Computed on demand, under the lock.
        var footprint: StorageFootprint {
            state.withLock { state in
                var footprint = StorageFootprint()
                state.registry.addFootprint(to: &footprint)
                footprint.lanes = state.lanes.count
                footprint.vacantLanes = state.vacantLanes.count
                footprint.laneBufferCapacity = state.lanes.reduce(0) { $0 + $1.bufferCapacity }
                footprint.retainedReplays = state.latest.retainedCount
                footprint.replaySlots = state.latest.slotCount
                return footprint
            }
        }

        /// Makes each delivery job (main actor, actor, and the immediate lane past a firer's own fire)
        /// yield after exactly `callbacks` callbacks: for tests that need a pass to span jobs at known
        /// points.
        ///
        /// A budget of no time whose first clock read comes after `callbacks` callbacks: the engine
        /// counts no callbacks for tests.
        func limitJobs(toCallbacks callbacks: Int) {
            state.withLock { $0.jobLimit = DeliveryBudget.Limit(nanoseconds: 0, firstCheck: callbacks) }
        }

        /// Gives each delivery job the production budget's rules with `nanoseconds` of time read
        /// from `clock` instead of the monotonic clock: for tests whose callbacks advance `clock` by
        /// a known simulated cost, so that what a job runs is exact, whatever the machine's speed.
        func limitJobs(toNanoseconds nanoseconds: UInt64, clock: @escaping @Sendable () -> UInt64) {
            state.withLock { state in
                var limit = DeliveryBudget.Limit.job
                limit.nanoseconds = nanoseconds
                limit.clock = clock
                state.jobLimit = limit
            }
        }

        /// Returns once at least `count` callers of `kind` wait on `lane`: a hook for tests that must
        /// know an `off` or a `flush` is waiting before they let the pass go on, or cancel it.
        func waitForWaiters(_ kind: WaiterWatchers.Kind, _ count: Int, lane: Int) async {
            await withCheckedContinuation { (continuation: CheckedContinuation<Void, Never>) in
                let now = state.withLock { state -> Bool in
                    guard WaiterWatchers.count(kind, on: state.lanes[lane]) < count else { return true }
                    state.waiterWatchers.add(lane: lane, kind: kind, count: count, continuation: continuation)
                    return false
                }
                if now { continuation.resume() }
            }
        }

        /// Returns once at least `count` `off` callers wait for the pass of `lane`.
        func waitForOffWaiters(_ count: Int, lane: Int) async {
            await waitForWaiters(.off, count, lane: lane)
        }
    }
#endif

extension BusStorage.State {
    /// Takes the test watchers that the callers now waiting satisfy, to resume after unlocking:
    /// called by `off` and `flush` once their caller waits.
    ///
    /// None in a release build.
    mutating func takeSatisfiedWatchers() -> [CheckedContinuation<Void, Never>] {
        #if DEBUG || SDKEVENTBUS_TEST_HOOKS
            waiterWatchers.isEmpty ? [] : waiterWatchers.takeSatisfied(lanes: lanes)
        #else
            []
        #endif
    }
}
