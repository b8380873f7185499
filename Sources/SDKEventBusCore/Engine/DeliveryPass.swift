/// The loop that calls a bucket's listeners for one fire, or one listener for a replay: the code
/// every delivery runs, on whichever thread or executor drains its lane.
///
/// It takes no lock. It tells ending subscriptions where it is through the lane's ``PassCursor``,
/// and when one asks it to act (release a callback it has moved past, resume an `off` waiting
/// for it), it calls `onRequest`, which takes the lock.
enum DeliveryPass {
    /// Calls, in subscription order, every live listener of `bucket` subscribed before `mark`, from
    /// the one with id `resumeID` on, until `budget` is spent.
    ///
    /// Per listener: one store of the cursor, one atomic load of its state, the call, one load of
    /// the request flag and one count of the budget. No lock, no allocation, no retain of the
    /// listener.
    ///
    /// - Returns: `nil` once every listener is called; otherwise the budget ran out, and this is
    ///   the id to resume from (the pass has left the bucket, so `off` need not wait for it).
    @inline(__always)
    static func run(
        payload: UnsafeRawPointer,
        bucket: ListenerBucket,
        mark: UInt64,
        from resumeID: UInt64,
        cursor: PassCursor,
        budget: inout DeliveryBudget,
        onRequest: () -> Void
    ) -> UInt64? {
        if cursor.enter(bucket.number) { onRequest() }
        var stop: UInt64?
        bucket.forEachChunk(upTo: bucket.publishedCount) { entries, count in
            for index in 0..<count {
                let entry = entries + index
                let id = entry.pointee.id
                // Listeners are in subscription order: stop at the first one subscribed after the fire.
                guard id < mark else { return false }
                guard id >= resumeID else { continue }
                cursor.move(to: id)
                guard ListenerEntry.isLive(entry) else { continue }
                entry.pointee.callback.function(payload)
                if cursor.hasRequests { onRequest() }
                if budget.spend() {
                    stop = id + 1
                    return false
                }
            }
            return true
        }
        cursor.leave()
        return stop
    }

    /// Calls one listener, for a replay owed to it.
    static func call(
        _ entry: UnsafeMutablePointer<ListenerEntry>,
        payload: UnsafeRawPointer,
        bucket: ListenerBucket,
        cursor: PassCursor,
        onRequest: () -> Void
    ) {
        if cursor.enter(bucket.number) { onRequest() }
        cursor.move(to: entry.pointee.id)
        if ListenerEntry.isLive(entry) {
            entry.pointee.callback.function(payload)
        }
        cursor.leave()
        if cursor.hasRequests { onRequest() }
    }
}
