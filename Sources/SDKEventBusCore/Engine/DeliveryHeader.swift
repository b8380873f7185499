/// What a delivery says besides its payload: 32 bytes of plain data.
struct DeliveryHeader {
    /// The bucket whose listeners receive it.
    let bucket: Unmanaged<ListenerBucket>
    /// The registry's next listener id when it was fired: only listeners with a smaller id get it.
    let mark: UInt64
    /// For a replay, the one subscription it is for (its token's listener id and slot); `.max`
    /// for a fire.
    var targetID: UInt64 = .max
    /// For a replay, the subscription's slot; for a fire a timeline records, the fire's stamp
    /// (see ``TimelineSink``), and 0 otherwise.
    var targetSlot: Int = 0

    var isReplay: Bool { targetID != .max }

    /// The stamp of the fire a timeline recorded; 0 for a replay, or when none records.
    @inline(__always)
    var fireStamp: UInt64 { isReplay ? 0 : UInt64(truncatingIfNeeded: targetSlot) }
}
