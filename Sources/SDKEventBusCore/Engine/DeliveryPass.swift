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
    /// listener. While a timeline records, the caller runs
    /// ``runRecording(payload:bucket:mark:from:cursor:budget:timeline:fire:onRequest:)`` instead:
    /// this loop knows nothing of timelines.
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
        let event = bucket.event
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
                if budget.spend(event: event, entry: entry) {
                    stop = id + 1
                    return false
                }
            }
            return true
        }
        cursor.leave()
        return stop
    }

    /// The pass while a timeline records: the same loop, each call going through
    /// ``record(_:fire:entry:payload:bucket:)``, which times it and tells the timeline.
    @inline(never)
    static func runRecording(
        payload: UnsafeRawPointer,
        bucket: ListenerBucket,
        mark: UInt64,
        from resumeID: UInt64,
        cursor: PassCursor,
        budget: inout DeliveryBudget,
        timeline: BusStorage.JobTimeline,
        fire: UInt64,
        onRequest: () -> Void
    ) -> UInt64? {
        if cursor.enter(bucket.number) { onRequest() }
        var stop: UInt64?
        let event = bucket.event
        bucket.forEachChunk(upTo: bucket.publishedCount) { entries, count in
            for index in 0..<count {
                let entry = entries + index
                let id = entry.pointee.id
                guard id < mark else { return false }
                guard id >= resumeID else { continue }
                cursor.move(to: id)
                guard ListenerEntry.isLive(entry) else { continue }
                record(timeline, fire: fire, entry: entry, payload: payload, bucket: bucket)
                if cursor.hasRequests { onRequest() }
                if budget.spend(event: event, entry: entry) {
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
        timeline: BusStorage.JobTimeline?,
        onRequest: () -> Void
    ) {
        if cursor.enter(bucket.number) { onRequest() }
        cursor.move(to: entry.pointee.id)
        if ListenerEntry.isLive(entry) {
            if let timeline {
                record(timeline, fire: 0, entry: entry, payload: payload, bucket: bucket)
            } else {
                entry.pointee.callback.function(payload)
            }
        }
        cursor.leave()
        if cursor.hasRequests { onRequest() }
    }

    /// Calls the listener of `entry`, timed, and tells the timeline before and after.
    @inline(never)
    private static func record(
        _ timeline: BusStorage.JobTimeline,
        fire: UInt64,
        entry: UnsafeMutablePointer<ListenerEntry>,
        payload: UnsafeRawPointer,
        bucket: ListenerBucket
    ) {
        let sink = timeline.sink
        let token = sink.willDeliver(fire: fire, event: bucket.event, laneName: timeline.laneName)
        let start = MonotonicClock.nanoseconds
        entry.pointee.callback.function(payload)
        let end = MonotonicClock.nanoseconds
        sink.delivered(
            (fire, bucket.event, bucket.lane, timeline.laneName, entry.pointee.id, ListenerEntry.site(of: entry)),
            start: start, end: end, token: token)
    }
}
