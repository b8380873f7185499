/// What a delivery says besides its payload: 32 bytes of plain data.
struct DeliveryHeader {
    /// The bucket whose listeners receive it.
    let bucket: Unmanaged<ListenerBucket>
    /// The registry's next listener id when it was fired: only listeners with a smaller id get it.
    let mark: UInt64
    /// For a replay, the one subscription it is for (its token's listener id and slot); `.max`
    /// for a fire.
    var targetID: UInt64 = .max
    var targetSlot: Int = -1

    var isReplay: Bool { targetID != .max }
}
