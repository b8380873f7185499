public import Foundation

/// The app's side of an SDK's client: what app code holds to subscribe, wait for readiness, read the
/// configuration and its status, and ask for a fresh one.
///
/// The SDK keeps its ``CatalogClient``, with the controls that change the SDK's state (ending
/// readiness, telling the lifecycle about the app, pausing, stopping and shutting down), and the
/// emitter beside it; it hands app code the client's ``CatalogClient/reader``. So app code can no
/// more end readiness, steer the lifecycle or reach the store than it can fire, as a Combine
/// subject keeps `send` and hands out a publisher, and `AsyncStream.makeStream()` keeps the
/// continuation and hands out the stream.
///
/// ```swift
/// let (client, emitter) = CatalogClient<FlagEvent>.makeClient(fetchService: flagService)
/// let flags = client.reader                 // hand app code this; keep the client and the emitter
///
/// let readiness = try await flags.ready()  // app code: wait, listen, read
/// flags.on(.flagsChanged) { payload in … }
/// ```
///
/// It has every verb of ``/SDKEventBusCore/CatalogSubscribing`` (`on`, `once`, `off` in every
/// ``/SDKEventBusCore/Delivery`` context, the typed variants, `stream`, `listenerCount`), made on the
/// client's ``bus``. What an SDK adds for app code goes in an extension of the reader
/// (`extension CatalogReader where Catalog == FlagEvent`), or in a facade of its own that keeps the
/// client.
///
/// A reader does not keep the SDK running: the client does. When the SDK shuts its client down or
/// lets it go, the lifecycle stops as it would without a reader; a reader then reads the last
/// configuration, ``refreshNow()`` throws ``ReadinessError/shutDown``, and so does
/// ``ready(timeout:clock:)`` for a client that made its store (a store the SDK keeps stays as the
/// SDK leaves it). Keep the client for as long as the SDK runs.
public struct CatalogReader<Catalog: LifecycleCatalog>: CatalogSubscribing {
    /// The client's event bus, which cannot fire.
    ///
    /// Every subscription the reader offers is made on it, and its `flush()` awaits delivery.
    public let bus: CatalogBus<Catalog>
    /// The client's lifecycle: the reader reads and refreshes through it, never steers it.
    private let lifecycle: ConfigLifecycle<Catalog>
    /// The client's status publisher, so that a reader's observable model is the client's.
    private let statusPublisher: StatusPublisher

    /// Creates the reader of a client's parts.
    init(bus: CatalogBus<Catalog>, lifecycle: ConfigLifecycle<Catalog>, statusPublisher: StatusPublisher) {
        self.bus = bus
        self.lifecycle = lifecycle
        self.statusPublisher = statusPublisher
    }

    /// Returns how the SDK became ready, once it is; at once if it already is, and with a
    /// `timeout`, throws when it passes first.
    ///
    /// As ``CatalogClient/ready(timeout:clock:)``: every caller gets the same ``Readiness``, and when
    /// it returns ``config`` is set (unless the readiness policy started degraded). A timeout ends
    /// only this wait.
    ///
    /// - Parameters:
    ///   - timeout: How long to wait at most, in seconds; `nil` (the default) waits as long as it
    ///     takes. Zero, a negative number or `nan` waits not at all.
    ///   - clock: The clock that measures `timeout`; `nil` (the default) is real time.
    /// - Returns: How the SDK became ready.
    /// - Throws: ``ReadinessError/timedOut(after:)`` when the deadline passes first;
    ///   `CancellationError` when the calling task is cancelled; the SDK's own error once it ended
    ///   readiness; ``ReadinessError/shutDown`` once the SDK shut the client down, or let go of a
    ///   client that made its store.
    @discardableResult
    public func ready(timeout: TimeInterval? = nil, clock: (any LifecycleClock)? = nil) async throws -> Readiness {
        try await lifecycle.store.waitForReady(timeout: timeout, clock: clock)
    }

    /// The configuration in effect, or `nil` before the first one.
    ///
    /// As ``CatalogClient/config``: reading it is never a network request; a read of a configuration
    /// older than its time to live asks for a refresh, which runs when the schedule allows.
    public var config: Catalog.Config? {
        // What is in effect when it is read; the refresh it may ask for comes after.
        let config = lifecycle.store.config
        lifecycle.refreshIfStale()
        return config
    }

    /// Whether the SDK is ready, how, where its configuration came from, when it last changed, and
    /// the last fetch error.
    ///
    /// For diagnostics screens and logs, as ``CatalogClient/status``.
    public var status: SDKStatus { lifecycle.currentStatus }

    #if canImport(Observation)
        /// The SDK's status as an observable model, for SwiftUI: the client's own model, updated on
        /// the main actor shortly after each change of ``status``.
        @available(iOS 17, macOS 14, tvOS 17, watchOS 10, *)
        @MainActor
        public var observableStatus: ObservableSDKStatus { statusPublisher.model }
    #endif

    /// Fetches the configuration now, or joins the fetch already in flight: a pull to refresh.
    ///
    /// As ``CatalogClient/refreshNow()``: it runs whether or not the SDK paused refreshing, and
    /// returns as soon as its fetch ends. It changes nothing but the configuration: a failed fetch
    /// never ends readiness unless the SDK's fetch error says so.
    ///
    /// - Returns: What the store did with the configuration.
    /// - Throws: The fetch's error; `CancellationError` when the calling task is cancelled (the
    ///   fetch goes on) or after the SDK stopped fetching; the error that ended readiness;
    ///   ``ReadinessError/shutDown`` once the SDK shut the client down or let it go.
    @discardableResult
    public func refreshNow() async throws -> ConfigChange {
        try await lifecycle.refreshNow()
    }
}
