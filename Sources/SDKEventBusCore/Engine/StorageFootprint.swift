/// What a bus's storage holds, counted where its memory is; see ``BusStorage/footprint``.
///
/// Entries in use drop to zero when the last subscription ends; capacities are the memory kept for
/// the next ones.
struct StorageFootprint: Equatable, Sendable {
    /// Entries held for subscriptions (slot rows, bucket entries and holes, side-table entries).
    var entries = 0
    /// Live subscriptions.
    var liveSubscriptions = 0
    /// Rows the slot table and its free list have room for.
    var slotCapacity = 0
    /// Entries the side tables (owners and end hooks, handles) have room for.
    var sideTableCapacity = 0
    /// Buckets: one per event and lane in use that had a subscription; a vacant lane keeps none.
    var buckets = 0
    /// Entries the buckets' allocated chunks have room for: none for an empty bucket.
    var bucketChunkCapacity = 0
    /// Routes fires follow: one per event and lane with live subscriptions.
    var routes = 0
    /// Delivery lanes: the main actor's, the immediate one, and one per actor in use or vacant (at
    /// most `BusStorage.State.maximumVacantLanes` vacant ones at the end of the table).
    var lanes = 0
    /// Lanes freed by actors that are gone, kept for the next actor: they keep no buffer and no
    /// bucket.
    var vacantLanes = 0
    /// Deliveries the lanes' buffers have room for: at most a segment per buffer once what was
    /// queued is delivered.
    var laneBufferCapacity = 0
    /// Payloads retained for replay.
    var retainedReplays = 0
    /// Payloads the replay store has room for: one per event.
    var replaySlots = 0
}
