public import Foundation
package import SDKEventBusCore

/// What a bus did, recorded: each fire (its event, firing thread and time), each delivery (the
/// listener's lane and the file and line of its `on`, how long it waited and ran), the bus's
/// diagnostics, and the steps of a configuration lifecycle that runs on it.
///
/// Off until started, and free while off: the engine checks once per fire and once per pass over a
/// bucket, and records nothing. Started, it keeps the last `capacity` records in a ring. Start,
/// stop and read it from any thread; every handle of a bus (`bus.timeline`) reaches the
/// same recording.
///
/// ```swift
/// bus.timeline.start()                         // or client.bus.timeline, for a whole SDK
/// // … the app runs …
/// bus.timeline.stop()
/// try bus.timeline.traceJSON().write(to: url)  // open it in ui.perfetto.dev
/// ```
///
/// While it records, a fire costs about 700 ns and a delivery about 100 ns more (a lock, clock
/// reads, and for a fire an allocation or two: Performance, in the repository's documentation);
/// while it is off, nothing. A bus has one timeline: whoever holds the bus shares it, and a
/// ``start(keepingLast:)`` drops what an earlier recording kept. On Apple platforms the same records can go
/// to Instruments as signposts (``startSignposts(subsystem:category:)``).
public struct EventTimeline: Sendable {
    let storage: BusStorage

    /// How many records a timeline keeps unless told otherwise.
    public static let defaultCapacity = 10_000

    /// Starts recording, keeping the last `capacity` records; what an earlier recording kept is
    /// dropped.
    ///
    /// From the next fire and the next delivery job on (a job under way is not recorded).
    ///
    /// - Parameter capacity: How many records to keep, at least 1: the oldest go first.
    public func start(keepingLast capacity: Int = EventTimeline.defaultCapacity) {
        let recorder = self.recorder
        recorder.state.withLock { state in
            state.ring = []
            state.ring.reserveCapacity(min(max(capacity, 1), 100_000))
            state.next = 0
            state.capacity = max(capacity, 1)
            state.origin = MonotonicClock.nanoseconds
            state.isRecording = true
            // Under the recorder's lock, as every switch is: one on another thread cannot undo it
            // in between (the engine never takes this lock while it holds the bus's).
            storage.installTimeline(recorder)
        }
    }

    /// Stops recording; the records stay until the next ``start(keepingLast:)``.
    ///
    /// Signposts, if started, go on.
    public func stop() {
        let recorder = self.recorder
        recorder.state.withLock { state in
            state.isRecording = false
            if state.signposts == nil { storage.installTimeline(nil) }
        }
    }

    /// Whether the timeline is recording.
    public var isRecording: Bool {
        existingRecorder?.state.withLock { $0.isRecording } ?? false
    }

    /// The records kept, oldest first.
    public func records() -> [TimelineRecord] {
        existingRecorder?.records(of: storage) ?? []
    }

    /// The records in the Trace Event Format.
    ///
    /// The JSON that Perfetto (ui.perfetto.dev) and chrome://tracing open; see ``TraceEventFormat``.
    ///
    /// - Parameter processName: The name the trace gives the process: your SDK's, say.
    /// - Returns: The trace, UTF-8 JSON.
    public func traceJSON(processName: String = "SDKEventBus") -> Data {
        TraceEventFormat.json(records(), processName: processName)
    }

    /// Starts sending each record to Instruments as it happens, as signposts under `subsystem` and
    /// `category`: an interval per delivery, an event per fire, diagnostic and step.
    ///
    /// On Apple platforms with `OSSignposter` (iOS 15, macOS 12, tvOS 15, watchOS 8) through it,
    /// below through `os_signpost`; elsewhere (Linux) it does nothing. Independent of recording.
    ///
    /// - Parameters:
    ///   - subsystem: Your SDK's subsystem, as its logs name it (`com.example.flags`).
    ///   - category: The category, as Instruments groups it (`events`).
    public func startSignposts(subsystem: String, category: String) {
        guard
            let signposts = TimelineSignposts.make(
                subsystem: subsystem, category: category, eventName: storage.eventName)
        else { return }
        let recorder = self.recorder
        recorder.state.withLock { state in
            state.signposts = signposts
            storage.installTimeline(recorder)
        }
    }

    /// Stops the signposts; recording, if started, goes on.
    public func stopSignposts() {
        guard let recorder = existingRecorder else { return }
        recorder.state.withLock { state in
            state.signposts = nil
            if !state.isRecording { storage.installTimeline(nil) }
        }
    }

    /// The bus's recorder, made on first use.
    private var recorder: TimelineRecorder {
        // Only this module keeps state there: always a recorder.
        storage.timelineState(orMake: { TimelineRecorder() }) as! TimelineRecorder
    }

    private var existingRecorder: TimelineRecorder? {
        storage.timelineState(orMake: nil) as? TimelineRecorder
    }
}

extension CatalogBus {
    /// What the bus did, once you start recording it: see ``EventTimeline``.
    ///
    /// Through a client, `client.bus.timeline` records the whole SDK: its events and its
    /// configuration lifecycle's steps.
    public nonisolated var timeline: EventTimeline { EventTimeline(storage: storage) }
}
