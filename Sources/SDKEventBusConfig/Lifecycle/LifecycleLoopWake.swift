/// What a lifecycle's loop does when it wakes from ``LifecycleStateMachine/park(_:)``.
enum LifecycleLoopWake: Equatable, Sendable {
    /// Fetch now: the fetch has begun.
    case fetch
    /// Stop: the loop's task was cancelled.
    case stop
}
