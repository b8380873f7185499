internal import _SDKEventBusAtomics

/// Where a lane's delivery pass is, published without the lock so that ending a subscription can
/// tell whether the pass may still call it.
///
/// A lane runs at most one pass at a time. The pass writes the cursor; `off` and `cancel` read it
/// under the bus's lock after marking their entry ended, and set ``requests`` when they need the
/// pass to act (resume a waiting `off`, release a callback it may be calling).
///
/// The protocol, with `S` the total order of sequentially consistent fences:
/// - entering a bucket, the pass stores its number, resets the position, then fences; ending a
///   subscription marks its entry ended, then fences, then reads the cursor. Whichever fence comes
///   first in `S`, either the pass reads the entry as ended, or the ender sees the pass in the
///   bucket.
/// - before each entry the pass stores its id with release ordering. An ender that reads a
///   position past its entry knows the pass is done with it; otherwise it treats the pass as
///   possibly calling it, because the pass's later read of the entry's state is not ordered after
///   its own store of the position.
/// - leaving a bucket is a release store, so an ender that sees it knows any call the pass made in
///   it has returned.
final class PassCursor: @unchecked Sendable {
    // @unchecked: three words accessed only through the atomic operations below.

    /// The bucket number plus one, or 0 outside any bucket.
    private let words: UnsafeMutablePointer<UInt64>

    init() {
        words = .allocate(capacity: 3)
        words.initialize(repeating: 0, count: 3)
    }

    deinit {
        words.deallocate()
    }

    private var bucketWord: UnsafeMutablePointer<UInt64> { words }
    private var positionWord: UnsafeMutablePointer<UInt64> { words + 1 }
    private var requestWord: UnsafeMutablePointer<UInt64> { words + 2 }

    // MARK: The pass

    /// Publishes that the pass is about to read the entries of `bucket`.
    ///
    /// - Returns: Whether requests are waiting (read after the fence).
    @inline(__always)
    func enter(_ bucket: Int) -> Bool {
        sdk_event_bus_store_relaxed_64(bucketWord, UInt64(bucket + 1))
        sdk_event_bus_store_relaxed_64(positionWord, 0)
        sdk_event_bus_fence()
        return sdk_event_bus_load_relaxed_64(requestWord) != 0
    }

    /// Publishes that the pass is at the entry with id `id`: every earlier one is done.
    @inline(__always)
    func move(to id: UInt64) {
        sdk_event_bus_store_release_64(positionWord, id)
    }

    /// Publishes that the pass has left its bucket.
    @inline(__always)
    func leave() {
        sdk_event_bus_store_release_64(bucketWord, 0)
    }

    /// Whether an ender asked the pass to act; a cheap check between callbacks.
    @inline(__always)
    var hasRequests: Bool {
        sdk_event_bus_load_relaxed_64(requestWord) != 0
    }

    // MARK: Enders (under the bus's lock)

    /// Whether the pass may still call the entry with id `id` in bucket `bucket`; call it after
    /// marking that entry ended.
    func mayCall(bucket: Int, id: UInt64) -> Bool {
        sdk_event_bus_fence()
        guard sdk_event_bus_load_acquire_64(bucketWord) == UInt64(bucket + 1) else { return false }
        return sdk_event_bus_load_acquire_64(positionWord) <= id
    }

    /// Asks the pass to act at its next check.
    func request() {
        sdk_event_bus_store_relaxed_64(requestWord, 1)
    }

    /// Clears the request, when the pass (or the lane's end) has acted on it.
    func clearRequests() {
        sdk_event_bus_store_relaxed_64(requestWord, 0)
    }
}
