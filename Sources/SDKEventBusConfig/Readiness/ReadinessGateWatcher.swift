/// What the testing library installs on a readiness gate to hear of its waiters.
package protocol ReadinessGateWatcher: AnyObject, Sendable {
    /// A waiter has registered, or the gate was decided; called outside the gate's lock, on the
    /// thread where it happened.
    func waitersChanged()
}
