import Foundation

/// Marks the thread that fires, so that a callback can tell whether it runs on the firing thread
/// or on a job the bus handed the work to.
enum FiringThread {
    private static let key = "SDKEventBusTests.FiringThread"

    /// Runs `fire` with the current thread marked as the firing one.
    static func whileFiring(_ fire: () -> Void) {
        Thread.current.threadDictionary[key] = true
        defer { Thread.current.threadDictionary.removeObject(forKey: key) }
        fire()
    }

    /// Whether the current thread is inside ``whileFiring(_:)``.
    static var isCurrent: Bool { Thread.current.threadDictionary[key] != nil }
}
