import SDKEventBus
import SDKEventBusTesting
import Testing

/// The testing library is layered as the products are: the recorder, the waits' error and the
/// conformance check moved to `SDKEventBusCoreTesting` in 1.1.0, and `import SDKEventBusTesting`
/// still gives each under the same name, module-qualified names included. (That the conformance
/// check still round-trips a wire form where it is imported: `CatalogConformanceTests`.)
@Suite struct TestingLibraryLayersTests {
    @Test func theTestingLibraryStillGivesTheNamesItsCorePartDeclaresQualifiedByItsOwnModule() async throws {
        let (bus, emitter) = EventBus.makeBus()
        let recorder: SDKEventBusTesting.EventRecorder<SystemEvent> = SDKEventBusTesting.EventRecorder(
            bus, delivery: .immediate)
        emitter.fire(ConversionPayload(goalId: "g", visitorId: "v"))
        #expect(try await recorder.next() == [.conversion(ConversionPayload(goalId: "g", visitorId: "v"))])

        let error = SDKEventBusTesting.WaitTimeoutError(expected: "1 event", observed: "none", timeout: 1)
        #expect(error.description == "waited 1.0 seconds for 1 event; saw none")
        let check = SDKEventBusTesting.CatalogConformance<SystemEvent>(
            rawValues: SystemEvent.allCases.map(\.rawValue), samples: [])
        #expect(check.problems.contains("no sample payload of ready"))
    }
}
