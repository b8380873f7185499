/// The loop that calls a bucket's listeners for one fire, or one listener for a replay: the code
/// every delivery runs, on whichever thread or executor drains its lane.
///
/// It takes no lock. It tells ending subscriptions where it is through the lane's ``PassCursor``,
/// and when one asks it to act (release a callback it has moved past, resume an `off` waiting
/// for it), it calls `onRequest`, which takes the lock.
enum DeliveryPass {
    /// What a pass tells a timeline: the sink, the fire's stamp and the lane.
    ///
    /// `nil` when no timeline records, which costs the pass one check.
    struct Recording {
        let sink: any TimelineSink
        let fire: UInt64
        let lane: Int
        let laneName: String
    }

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
        recording: Recording?,
        onRequest: () -> Void
    ) -> UInt64? {
        if let recording {
            return runRecording(
                payload: payload, bucket: bucket, mark: mark, from: resumeID, cursor: cursor, budget: &budget,
                recording: recording, onRequest: onRequest)
        }
        if cursor.enter(bucket.number) { onRequest() }
        var stop: UInt64?
        let event = bucket.event
        bucket.forEachChunk(upTo: bucket.publishedCount) { entries, sites, count in
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
                if budget.spend(event: event, site: sites + index) {
                    stop = id + 1
                    return false
                }
            }
            return true
        }
        cursor.leave()
        return stop
    }

    /// ``run(payload:bucket:mark:from:cursor:budget:recording:onRequest:)`` while a timeline
    /// records: the same loop, which also reads the clock around each call and tells the sink.
    @inline(never)
    private static func runRecording(
        payload: UnsafeRawPointer,
        bucket: ListenerBucket,
        mark: UInt64,
        from resumeID: UInt64,
        cursor: PassCursor,
        budget: inout DeliveryBudget,
        recording: Recording,
        onRequest: () -> Void
    ) -> UInt64? {
        if cursor.enter(bucket.number) { onRequest() }
        var stop: UInt64?
        let event = bucket.event
        bucket.forEachChunk(upTo: bucket.publishedCount) { entries, sites, count in
            for index in 0..<count {
                let entry = entries + index
                let id = entry.pointee.id
                guard id < mark else { return false }
                guard id >= resumeID else { continue }
                cursor.move(to: id)
                guard ListenerEntry.isLive(entry) else { continue }
                record(recording, event: event, listener: id, site: sites[index]) {
                    entry.pointee.callback.function(payload)
                }
                if cursor.hasRequests { onRequest() }
                if budget.spend(event: event, site: sites + index) {
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
        site: UInt32,
        payload: UnsafeRawPointer,
        bucket: ListenerBucket,
        cursor: PassCursor,
        recording: Recording?,
        onRequest: () -> Void
    ) {
        if cursor.enter(bucket.number) { onRequest() }
        cursor.move(to: entry.pointee.id)
        if ListenerEntry.isLive(entry) {
            if let recording {
                record(recording, event: bucket.event, listener: entry.pointee.id, site: site) {
                    entry.pointee.callback.function(payload)
                }
            } else {
                entry.pointee.callback.function(payload)
            }
        }
        cursor.leave()
        if cursor.hasRequests { onRequest() }
    }

    /// Makes `call`, timed, and tells the timeline before and after.
    @inline(__always)
    private static func record(_ recording: Recording, event: Int, listener: UInt64, site: UInt32, call: () -> Void) {
        var delivery = TimelineDelivery(
            fire: recording.fire, event: event, lane: recording.lane, laneName: recording.laneName,
            listener: listener, site: site, start: MonotonicClock.nanoseconds)
        let token = recording.sink.willDeliver(delivery)
        call()
        delivery.end = MonotonicClock.nanoseconds
        recording.sink.delivered(delivery, token: token)
    }
}
