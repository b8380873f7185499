import Foundation
import SDKEventBusTesting
import Testing

@testable import SDKEventBus
@testable import SDKEventBusConfig
@testable import SDKEventBusCore
@testable import SDKEventBusWire

/// The testing library never runs a test's own code under its locks: what a recorder saw is copied
/// under its lock and described after, so a value whose description reads the recorder works.
@Suite(.timeLimit(.minutes(1))) struct RecorderUserCodeTests {
    /// An error whose description reads the recorder that recorded it.
    struct SelfDescribingError: Error, CustomStringConvertible {
        let recorder: LifecycleRecorder
        var description: String { "failure number \(recorder.steps.count)" }
    }

    @Test func aTimedOutWaitDescribesAStepWhoseDescriptionReadsTheRecorder() async throws {
        let steps = LifecycleRecorder()
        steps.handler(.fetchFailed(SelfDescribingError(recorder: steps), attempt: 1, retryIn: 1))
        let error = await #expect(throws: WaitTimeoutError.self) {
            try await steps.wait("a stop", within: 0.05) { $0.isStopped }
        }
        #expect(error?.description.contains("failure number 1") == true, "\(String(describing: error))")
    }

    @Test func aTimedOutWaitDescribesAPayloadWhoseDescriptionReadsTheRecorder() async throws {
        let (bus, emitter) = CatalogBus<ProbeEvent>.makeBus()
        let recorder = EventRecorder(bus, delivery: .immediate)
        let seenBy = LockedValue<EventRecorder<ProbeEvent>?>(recorder)
        emitter.fire(ProbePayload(seenBy: seenBy))
        let error = await #expect(throws: WaitTimeoutError.self) {
            try await recorder.waitForCount(2, within: 0.05)
        }
        #expect(
            error?.description.contains("a probe its recorder counts as 1 of 1") == true, "\(String(describing: error))"
        )
    }
}

/// A one-event catalog whose payload describes itself by reading the recorder that records it.
enum ProbeEvent: String, EventCatalog {
    case probe
    typealias Payload = ProbePayload
}

struct ProbePayload: CatalogPayload, CustomStringConvertible {
    let seenBy: LockedValue<EventRecorder<ProbeEvent>?>
    var event: ProbeEvent { .probe }
    var description: String {
        let count = seenBy.withLock { $0 }?.count ?? 0
        return "a probe its recorder counts as 1 of \(count)"
    }
}
