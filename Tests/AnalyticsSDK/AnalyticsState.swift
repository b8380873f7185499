/// The analytics SDK's mutable state: plain synchronous code that ``Analytics`` runs under its lock,
/// firing what it returns after the lock is released.
struct AnalyticsState: Sendable {
    /// A batch handed to the uploader, and the queue it was taken from.
    struct Upload {
        let batch: [TrackedEvent]
        let generation: UInt64
    }

    private(set) var consent: Consent
    private(set) var sessionID: String
    /// The events waiting for upload, oldest first; an upload's batch stays at the head until it
    /// succeeds, so a failure keeps it in order.
    private(set) var queue: [TrackedEvent] = []
    /// Whether an upload is under way.
    private var isUploading = false
    /// Bumped whenever the queue is emptied, so that an upload that outlives its queue does not
    /// remove the events queued after it.
    private var generation: UInt64 = 0

    init(consent: Consent, sessionID: String) {
        self.consent = consent
        self.sessionID = sessionID
    }

    /// Queues an event, and returns it; `nil` when the user denied consent.
    mutating func record(_ kind: TrackedEvent.Kind, name: String, properties: [String: String]) -> TrackedEvent? {
        guard consent == .granted else { return nil }
        let event = TrackedEvent(kind: kind, name: name, properties: properties, sessionID: sessionID)
        queue.append(event)
        return event
    }

    /// Starts an upload of the whole queue; `nil` when it is empty or another upload is under way.
    mutating func beginUpload() -> Upload? {
        guard !queue.isEmpty, !isUploading else { return nil }
        isUploading = true
        return Upload(batch: queue, generation: generation)
    }

    /// Ends `upload`: a success removes its batch from the queue, a failure keeps it.
    mutating func finish(_ upload: Upload, succeeded: Bool) {
        isUploading = false
        if succeeded, upload.generation == generation { queue.removeFirst(upload.batch.count) }
    }

    /// Starts a new session with an empty queue.
    mutating func startSession(_ sessionID: String) {
        self.sessionID = sessionID
        emptyQueue()
    }

    /// Sets the consent, and returns whether it changed; denying it empties the queue.
    mutating func setConsent(_ consent: Consent) -> Bool {
        guard consent != self.consent else { return false }
        self.consent = consent
        if consent == .denied { emptyQueue() }
        return true
    }

    private mutating func emptyQueue() {
        queue.removeAll()
        generation += 1
    }
}
