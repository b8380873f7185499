public import Foundation
public import SDKEventBusCore

/// Records what a bus delivers, so that a test awaits events instead of sleeping or polling.
///
/// It subscribes to every event of a catalog (or the ones you name) in the delivery context you
/// choose, and keeps each delivery in order. A test then awaits the next events, or a condition,
/// with a bounded wait that fails with a readable message: what arrived, what was expected.
///
/// ```swift
/// let recorder = EventRecorder(bus)
/// emitter.fire(.flagsChanged(changedKeys: ["a"]))
/// let next = try await recorder.next()                        // the .flagsChanged payload
/// try await recorder.waitUntil("two updates") { $0.count == 2 }
/// ```
///
/// Works with Swift Testing and XCTest alike: a failed wait throws ``WaitTimeoutError``, which both
/// report. Conditions run outside the recorder's lock, so a condition may read the recorder.
public final class EventRecorder<Catalog: EventCatalog>: Sendable {
    private let log = RecordingLog<Catalog.Payload>()
    /// How many payloads ``next(_:within:)`` has handed out.
    private let consumed = LockedValue(0)
    private let tokens = LockedValue<[EventSubscription]>([])

    /// Records `events` (all by default) delivered on the main actor.
    ///
    /// - Parameters:
    ///   - source: The bus (or client) to record.
    ///   - events: The events to record.
    ///   - delivery: ``/SDKEventBusCore/Delivery/mainActor``, the default.
    public init(
        _ source: some CatalogSubscribing<Catalog>,
        events: Set<Catalog> = Set(Catalog.allCases),
        delivery: Delivery<MainActor> = .mainActor
    ) {
        subscribe(events) { event in source.on(event, delivery: delivery) { [weak self] in self?.record($0) } }
    }

    /// Records `events` (all by default) delivered immediately, on the firing thread.
    ///
    /// - Parameters:
    ///   - source: The bus (or client) to record.
    ///   - events: The events to record.
    ///   - delivery: ``/SDKEventBusCore/Delivery/immediate``.
    public init(
        _ source: some CatalogSubscribing<Catalog>,
        events: Set<Catalog> = Set(Catalog.allCases),
        delivery: Delivery<FiringThread>
    ) {
        subscribe(events) { event in source.on(event, delivery: delivery) { [weak self] in self?.record($0) } }
    }

    /// Records `events` (all by default) delivered isolated to an actor.
    ///
    /// - Parameters:
    ///   - source: The bus (or client) to record.
    ///   - events: The events to record.
    ///   - delivery: ``/SDKEventBusCore/Delivery/isolated(to:)``: the actor the recording callbacks are isolated to.
    public init<A: Actor>(
        _ source: some CatalogSubscribing<Catalog>,
        events: Set<Catalog> = Set(Catalog.allCases),
        delivery: Delivery<A>
    ) {
        subscribe(events) { event in
            source.on(event, delivery: delivery) { [weak self] _, payload in self?.record(payload) }
        }
    }

    deinit {
        stop()
    }

    private func subscribe(_ events: Set<Catalog>, _ subscribe: (Catalog) -> EventSubscription) {
        let tokens = Catalog.allCases.filter(events.contains).map(subscribe)
        self.tokens.withLock { $0 += tokens }
    }

    private func record(_ payload: Catalog.Payload) {
        log.append(payload)
    }

    /// Ends the recording subscriptions; what was recorded stays.
    public func stop() {
        for token in tokens.withLock({ tokens in
            defer { tokens = [] }
            return tokens
        }) { token.cancel() }
    }

    // MARK: Reading

    /// Every payload recorded so far, in delivery order.
    public var payloads: [Catalog.Payload] { log.elements }

    /// The events of every payload recorded so far, in delivery order.
    public var events: [Catalog] { payloads.map(\.event) }

    /// How many payloads were recorded.
    public var count: Int { log.count }

    /// How many waits are in progress: zero once every wait has ended, however it ended.
    package var waiterCount: Int { log.waiterCount }

    // MARK: Waiting

    /// Returns the next `count` payloads after those earlier calls returned, once they arrive.
    ///
    /// - Parameters:
    ///   - count: How many payloads.
    ///   - timeout: How long to wait at most, in seconds of real time.
    /// - Returns: The payloads, in delivery order.
    /// - Throws: ``WaitTimeoutError`` when they do not arrive in time; `CancellationError`.
    @discardableResult
    public func next(_ count: Int = 1, within timeout: TimeInterval = WaitTimeoutError.defaultTimeout) async throws
        -> [Catalog.Payload]
    {
        let start = consumed.withLock { $0 }
        try await waitUntil("\(count) more event(s) after the first \(start)", within: timeout) {
            $0.count >= start + count
        }
        consumed.withLock { $0 = max($0, start + count) }
        return log.withElements { Array($0[start..<start + count]) }
    }

    /// Returns once `condition` holds for the payloads recorded so far.
    ///
    /// - Parameters:
    ///   - expectation: What the test waits for, in words, for the failure message.
    ///   - timeout: How long to wait at most, in seconds of real time.
    ///   - condition: Checked against every payload recorded so far, when the wait starts and after
    ///     each delivery; it runs outside the recorder's lock, so it may read the recorder.
    /// - Throws: ``WaitTimeoutError`` when the condition does not hold in time; `CancellationError`.
    public func waitUntil(
        _ expectation: String = "the condition",
        within timeout: TimeInterval = WaitTimeoutError.defaultTimeout,
        _ condition: @escaping @Sendable ([Catalog.Payload]) -> Bool
    ) async throws {
        try await log.wait(until: condition, within: timeout) { payloads in
            WaitTimeoutError(
                expected: expectation,
                observed: WaitTimeoutError.recorded(payloads, noun: "event(s)"),
                timeout: timeout
            )
        }
    }

    /// Returns once at least `count` payloads have been recorded in all.
    ///
    /// - Parameters:
    ///   - count: How many payloads in all.
    ///   - timeout: How long to wait at most, in seconds of real time.
    /// - Throws: ``WaitTimeoutError``; `CancellationError`.
    public func waitForCount(_ count: Int, within timeout: TimeInterval = WaitTimeoutError.defaultTimeout) async throws
    {
        try await waitUntil("\(count) event(s) in all", within: timeout) { $0.count >= count }
    }
}
