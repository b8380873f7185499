internal import _SDKEventBusAtomics

/// A flag that is set once and never cleared, read without a lock.
///
/// An app bus sets it when its all-events feed first gets a subscriber, so that publishing reads
/// the clock only when someone can see the time.
final class OneWayFlag: @unchecked Sendable {
    // @unchecked: one word, read and written only through the atomic operations below.

    private let word = UnsafeMutablePointer<UInt32>.allocate(capacity: 1)

    init() {
        word.initialize(to: 0)
    }

    deinit {
        word.deallocate()
    }

    /// Whether the flag has been set.
    var isSet: Bool {
        sdk_event_bus_load_acquire_32(word) != 0
    }

    /// Sets the flag.
    func set() {
        sdk_event_bus_store_release_32(word, 1)
    }
}
