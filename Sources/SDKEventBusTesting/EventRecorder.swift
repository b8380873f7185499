public import SDKEventBus

/// Records what a bus delivers, so that a test awaits events instead of sleeping or polling.
///
/// It subscribes to every event of a catalogue (or the ones you name) in the delivery context you
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
/// Works with Swift Testing and XCTest alike: a failed wait throws ``Timeout``, which both report.
public final class EventRecorder<Catalogue: EventCatalogue>: Sendable {
    /// A wait that ended before its condition held.
    public struct Timeout: Error, CustomStringConvertible {
        /// What the test waited for.
        public var expected: String
        /// What had arrived by then, in order.
        public var received: [Catalogue.Payload]
        /// How long it waited.
        public var timeout: Duration

        /// What was expected and what arrived.
        public var description: String {
            let arrived = received.isEmpty ? "nothing" : received.map { "\($0)" }.joined(separator: ", ")
            return "timed out after \(timeout) waiting for \(expected); received \(received.count): \(arrived)"
        }
    }

    private struct Waiter {
        let id: UInt64
        let isSatisfied: @Sendable ([Catalogue.Payload]) -> Bool
        let continuation: CheckedContinuation<Void, any Error>
    }

    private struct State {
        var payloads: [Catalogue.Payload] = []
        /// How many payloads ``next(_:within:)`` has handed out.
        var consumed = 0
        var waiters: [Waiter] = []
        var nextWaiterID: UInt64 = 0

        mutating func takeSatisfied() -> [CheckedContinuation<Void, any Error>] {
            let payloads = self.payloads
            let satisfied = waiters.filter { $0.isSatisfied(payloads) }
            waiters.removeAll { waiter in satisfied.contains { $0.id == waiter.id } }
            return satisfied.map(\.continuation)
        }
    }

    private let state = LockedValue(State())
    private let tokens = LockedValue<[EventListenerToken]>([])

    /// The default bound of a wait: long enough never to fail a correct test on a loaded machine.
    public static var defaultTimeout: Duration { .seconds(30) }

    /// Records `events` (all by default) delivered on the main actor.
    ///
    /// - Parameters:
    ///   - bus: The bus to record.
    ///   - events: The events to record.
    public init(_ bus: CatalogueBus<Catalogue>, events: Set<Catalogue> = Set(Catalogue.allCases)) {
        subscribe(events) { event in bus.on(event) { [weak self] in self?.record($0) } }
    }

    /// Records `events` (all by default) delivered immediately, on the firing thread.
    ///
    /// - Parameters:
    ///   - bus: The bus to record.
    ///   - events: The events to record.
    ///   - delivery: ``ImmediateDelivery/immediate``.
    public init(
        _ bus: CatalogueBus<Catalogue>,
        events: Set<Catalogue> = Set(Catalogue.allCases),
        delivery: ImmediateDelivery
    ) {
        subscribe(events) { event in bus.on(event, delivery: delivery) { [weak self] in self?.record($0) } }
    }

    /// Records `events` (all by default) delivered isolated to `actor`.
    ///
    /// - Parameters:
    ///   - bus: The bus to record.
    ///   - events: The events to record.
    ///   - actor: The actor the recording callbacks are isolated to.
    public init<A: Actor>(
        _ bus: CatalogueBus<Catalogue>, events: Set<Catalogue> = Set(Catalogue.allCases), isolation actor: A
    ) {
        subscribe(events) { event in bus.on(event, isolation: actor) { [weak self] _, payload in self?.record(payload) }
        }
    }

    deinit {
        stop()
    }

    private func subscribe(_ events: Set<Catalogue>, _ subscribe: (Catalogue) -> EventListenerToken) {
        let tokens = Catalogue.allCases.filter(events.contains).map(subscribe)
        self.tokens.withLock { $0 += tokens }
    }

    private func record(_ payload: Catalogue.Payload) {
        let satisfied = state.withLock { state in
            state.payloads.append(payload)
            return state.takeSatisfied()
        }
        for waiter in satisfied { waiter.resume() }
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
    public var payloads: [Catalogue.Payload] { state.withLock { $0.payloads } }

    /// The events of every payload recorded so far, in delivery order.
    public var events: [Catalogue] { payloads.map(\.event) }

    /// How many payloads were recorded.
    public var count: Int { state.withLock { $0.payloads.count } }

    // MARK: Waiting

    /// Returns the next `count` payloads after those earlier calls returned, once they arrive.
    ///
    /// - Parameters:
    ///   - count: How many payloads.
    ///   - timeout: How long to wait at most, in real time.
    /// - Returns: The payloads, in delivery order.
    /// - Throws: ``Timeout`` when they do not arrive in time; `CancellationError`.
    @discardableResult
    public func next(_ count: Int = 1, within timeout: Duration = defaultTimeout) async throws -> [Catalogue.Payload] {
        let start = state.withLock { $0.consumed }
        try await waitUntil("\(count) more event(s) after the first \(start)", within: timeout) {
            $0.count >= start + count
        }
        return state.withLock { state in
            state.consumed = start + count
            return Array(state.payloads[start..<start + count])
        }
    }

    /// Returns once `condition` holds for the payloads recorded so far.
    ///
    /// - Parameters:
    ///   - expectation: What the test waits for, in words, for the failure message.
    ///   - timeout: How long to wait at most, in real time.
    ///   - condition: Checked against every payload recorded so far, after each delivery.
    /// - Throws: ``Timeout`` when the condition does not hold in time; `CancellationError`.
    public func waitUntil(
        _ expectation: String = "the condition",
        within timeout: Duration = defaultTimeout,
        _ condition: @escaping @Sendable ([Catalogue.Payload]) -> Bool
    ) async throws {
        let id = state.withLock { state in
            defer { state.nextWaiterID += 1 }
            return state.nextWaiterID
        }
        let timer = Task {
            try? await Task.sleep(for: timeout)
            let (waiter, received) = state.withLock { state in
                let waiter = state.waiters.first { $0.id == id }
                state.waiters.removeAll { $0.id == id }
                return (waiter, state.payloads)
            }
            waiter?.continuation.resume(
                throwing: Timeout(expected: expectation, received: received, timeout: timeout))
        }
        defer { timer.cancel() }
        try await withTaskCancellationHandler {
            try await withCheckedThrowingContinuation { (continuation: CheckedContinuation<Void, any Error>) in
                let now = state.withLock { state -> Bool in
                    guard !condition(state.payloads) else { return true }
                    state.waiters.append(Waiter(id: id, isSatisfied: condition, continuation: continuation))
                    return false
                }
                if now { continuation.resume() }
            }
        } onCancel: {
            let waiter = state.withLock { state in
                defer { state.waiters.removeAll { $0.id == id } }
                return state.waiters.first { $0.id == id }
            }
            waiter?.continuation.resume(throwing: CancellationError())
        }
    }

    /// Returns once at least `count` payloads have been recorded in all.
    ///
    /// - Parameters:
    ///   - count: How many payloads in all.
    ///   - timeout: How long to wait at most, in real time.
    /// - Throws: ``Timeout``; `CancellationError`.
    public func waitForCount(_ count: Int, within timeout: Duration = defaultTimeout) async throws {
        try await waitUntil("\(count) event(s) in all", within: timeout) { $0.count >= count }
    }
}
