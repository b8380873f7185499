import Foundation
public import SDKEventBusCore

/// An analytics SDK: it queues what the app tracks, uploads the queue on ``flush()``, and announces
/// what it does on its bus, ``events``, where app code listens and only the SDK fires.
///
/// It conforms to `CatalogSubscribing`, so app code subscribes on the facade itself, with the
/// package's vocabulary, and the facade keeps its own verbs: ``flush()`` uploads, ``reset()`` starts
/// a new session, ``events`` is its bus. None of them collides with a subscribing verb.
///
/// ```swift
/// let analytics = Analytics(uploader: { batch in try await api.send(batch) })
/// analytics.on(.uploadFailed) { payload in print(payload) }   // on the main actor
/// analytics.track("Checkout Started", properties: ["plan": "pro"])
/// await analytics.flush()                                      // uploads the queue
/// ```
///
/// Every method is synchronous and callable from any thread, except ``flush()``, which awaits the
/// uploader. Calls made at once from several threads are each announced, in the order they reach
/// the bus.
public final class Analytics: CatalogSubscribing {
    /// Uploads a batch of events, oldest first; throws when the batch did not reach the server.
    public typealias Uploader = @Sendable (_ batch: [TrackedEvent]) async throws -> Void

    /// The SDK's event bus, by the name the SDK gave it: what ``bus`` is.
    ///
    /// App code subscribes on the facade or here alike: `on`, `once`, `on(_:owner:)` and the typed
    /// `on(Payload.self)`, each with a `delivery` context (the main actor by default, `.immediate`,
    /// `.isolated(to:)`); `off`, `cancelAll(ownedBy:)`, `stream(…)` for an asynchronous sequence,
    /// and `listenerCount(for:)`. The bus's `flush()` awaits delivery to the listeners; the facade's
    /// own ``flush()`` uploads.
    ///
    /// ```swift
    /// let subscription = analytics.on(EventTrackedPayload.self) { print($0.tracked.name) }
    /// await analytics.events.flush()   // every listener has run
    /// ```
    ///
    /// The bus has no public way to fire: the SDK keeps the emitter.
    public let events: CatalogBus<AnalyticsEvent>
    /// The bus the facade's subscriptions are made on, for `CatalogSubscribing`: ``events``.
    public var bus: CatalogBus<AnalyticsEvent> { events }
    private let emitter: CatalogEmitter<AnalyticsEvent>
    private let uploader: Uploader
    private let state: Locked<AnalyticsState>

    /// Starts the SDK: announces the consent and a new session.
    ///
    /// - Parameters:
    ///   - consent: Whether the user lets the SDK track; ``Consent/granted`` by default.
    ///   - uploader: Sends a batch of events to the server; called by ``flush()``.
    public init(consent: Consent = .granted, uploader: @escaping Uploader) {
        (events, emitter) = CatalogBus<AnalyticsEvent>.makeBus()
        self.uploader = uploader
        let sessionID = UUID().uuidString
        state = Locked(AnalyticsState(consent: consent, sessionID: sessionID))
        emitter.fire(ConsentChangedPayload(consent: consent))
        emitter.fire(SessionStartedPayload(sessionID: sessionID))
    }

    /// Whether the user lets the SDK track.
    public var consent: Consent { state.withLock { $0.consent } }

    /// The current session's identifier.
    public var sessionID: String { state.withLock { $0.sessionID } }

    /// The events waiting for upload, oldest first.
    public var queuedEvents: [TrackedEvent] { state.withLock { $0.queue } }

    /// Queues an action for upload and fires `event.tracked`; does nothing when consent is denied.
    ///
    /// - Parameters:
    ///   - name: The action's name, "Checkout Started" say.
    ///   - properties: What the app says about it.
    public func track(_ name: String, properties: [String: String] = [:]) {
        guard let tracked = state.withLock({ $0.record(.track, name: name, properties: properties) }) else { return }
        emitter.fire(EventTrackedPayload(tracked))
    }

    /// Queues a screen view for upload and fires `screen.viewed`; does nothing when consent is denied.
    ///
    /// - Parameters:
    ///   - name: The screen's name.
    ///   - properties: What the app says about it.
    public func screen(_ name: String, properties: [String: String] = [:]) {
        guard state.withLock({ $0.record(.screen, name: name, properties: properties) }) != nil else { return }
        emitter.fire(ScreenViewedPayload(name: name, properties: properties))
    }

    /// Uploads the queue: hands it to the uploader, then fires `queue.flushed` and empties the queue,
    /// or fires `upload.failed` and keeps it for the next flush.
    ///
    /// Does nothing when the queue is empty or another flush is uploading. Events tracked during the
    /// upload stay queued. The SDK's own verb, which `CatalogSubscribing` leaves to it: the bus's
    /// `analytics.events.flush()` awaits delivery to listeners instead.
    public func flush() async {
        guard let upload = state.withLock({ $0.beginUpload() }) else { return }
        do {
            try await uploader(upload.batch)
            state.withLock { $0.finish(upload, succeeded: true) }
            emitter.fire(QueueFlushedPayload(eventCount: upload.batch.count))
        } catch {
            state.withLock { $0.finish(upload, succeeded: false) }
            emitter.fire(UploadFailedPayload(eventCount: upload.batch.count, reason: "\(error)"))
        }
    }

    /// Forgets the queued events and starts a new session, which fires `session.started`: for a user
    /// who logs out.
    public func reset() {
        let sessionID = UUID().uuidString
        state.withLock { $0.startSession(sessionID) }
        emitter.fire(SessionStartedPayload(sessionID: sessionID))
    }

    /// Sets the user's consent and fires `consent.changed` when it changed; denying it empties the
    /// queue, and nothing is tracked until it is granted again.
    ///
    /// - Parameter consent: Whether the user lets the SDK track.
    public func setConsent(_ consent: Consent) {
        guard state.withLock({ $0.setConsent(consent) }) else { return }
        emitter.fire(ConsentChangedPayload(consent: consent))
    }
}
