internal import _SDKEventBusAtomics

// Debug builds only (`DEBUG`, which SwiftPM defines for them), where `assert` checks: a release
// build carries neither the verdicts nor their code.
#if DEBUG
    /// Which events of one bus have had a fired payload checked for a slip (a payload case named after
    /// one event whose `event` says it is another; see ``CatalogPayload/eventSlip``).
    ///
    /// The check reflects on the payload and prints the name of every event of the catalog: tens of
    /// microseconds in a debug build, which is what an app's Debug configuration compiles the package
    /// as. Run at every fire, it made a fire to one immediate listener about 20× a lock-and-array bus's.
    /// A bus runs it on the first fire of each event instead, and afterwards reads one flag: a debug
    /// build still stops at the first fire of an event whose payload slipped, with the same message.
    ///
    /// Thread-safe without the bus's lock: two threads that fire an event for the first time at once may
    /// both run the check, which only reads the payload.
    final class EventSlipVerdicts: @unchecked Sendable {
        // @unchecked: `checked` is allocated once, and each of its flags is read and set atomically.

        /// One flag per event position: 1 once a payload fired as that event was found slip-free.
        private let checked: UnsafeMutablePointer<UInt32>

        init(eventCount: Int) {
            checked = .allocate(capacity: max(eventCount, 1))
            checked.initialize(repeating: 0, count: max(eventCount, 1))
        }

        deinit {
            checked.deallocate()
        }

        /// Whether `payload`, fired as the event at `position`, is free of a slip: checked on the first
        /// fire of that event, and taken as checked afterwards.
        ///
        /// - Parameters:
        ///   - payload: The payload being fired.
        ///   - position: The position of its event.
        /// - Returns: `false` when the payload slipped; ``CatalogPayload/eventSlip`` says how.
        func isSlipFree<Payload: CatalogPayload>(_ payload: Payload, at position: Int) -> Bool {
            if sdk_event_bus_load_acquire_32(checked + position) != 0 { return true }
            guard payload.eventSlip == nil else { return false }
            sdk_event_bus_store_release_32(checked + position, 1)
            return true
        }
    }
#endif
