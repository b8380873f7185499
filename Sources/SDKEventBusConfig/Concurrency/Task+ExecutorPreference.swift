extension Task where Failure == Never {
    /// Starts an unstructured task that prefers the current task's executor, when the current task
    /// has a preference (`withTaskExecutorPreference`, `Task(executorPreference:)`); otherwise it
    /// is `Task(operation:)`.
    ///
    /// A child task inherits its parent's executor preference, and an unstructured task does not.
    /// The configuration half's tasks (the client's lifecycle, its timers, a fetch raced against
    /// cancellation) are its caller's work in all but structure, so they run where the caller's
    /// task prefers: a test that drives a client on a deterministic executor (the simulation in
    /// the tests) then sees every job of it, and no thread of the global pool decides an order.
    ///
    /// - Parameter operation: The task's work.
    /// - Returns: The task.
    @discardableResult
    static func inheritingExecutorPreference(operation: sending @escaping @isolated(any) () async -> Success) -> Task {
        // Reading the preference back as an executor takes the 2026 runtimes (Swift 6.3); before them
        // (and on every OS an app runs on, unless a test set a preference) there is none to inherit.
        if #available(macOS 26.4, iOS 26.4, tvOS 26.4, watchOS 26.4, visionOS 26.4, *),
            let executor = withUnsafeCurrentTask(body: { $0?.unownedTaskExecutor?.asTaskExecutor() })
        {
            return Task(executorPreference: executor, operation: operation)
        }
        return Task(operation: operation)
    }
}
