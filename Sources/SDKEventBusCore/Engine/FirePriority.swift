/// The priority a fire carries to its lane's drain, read once per fire and only when a lane needs
/// it: an actor lane's, or the immediate lane's when another thread is delivering on it.
///
/// The main lane needs none (its jobs run in the main queue's order, whatever their priority), so
/// the common fire, to main-actor listeners, reads no priority: reading it costs about a quarter of
/// such a fire (on Linux, `Task.currentPriority` takes about 28 ns in a task; see
/// Docs/Performance.md).
struct FirePriority {
    /// The raw value once read; `nil` until then.
    private var value: UInt8?

    /// Not read yet.
    static var unread: FirePriority { FirePriority(value: nil) }

    /// The caller's priority as a `TaskPriority`'s raw value, read on first use: its task's, or
    /// outside any task what the system says of its thread.
    ///
    /// `Task.currentPriority`, not `withUnsafeCurrentTask`: the latter is an unspecialized generic
    /// in the Concurrency library, two to three times slower on Linux.
    mutating func read() -> UInt8 {
        if let value { return value }
        let read = UInt8(truncatingIfNeeded: Task.currentPriority.rawValue)
        value = read
        return read
    }

    /// The priority to create a drain's task with: `nil` (the creator's) for 0.
    static func task(_ priority: UInt8) -> TaskPriority? {
        priority == 0 ? nil : TaskPriority(rawValue: priority)
    }
}
