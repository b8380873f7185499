import Testing

@testable import SDKEventBusConfig
@testable import SDKEventBusCore
@testable import SDKEventBusWire

/// Values that keep a configuration boxed (to keep their layout fixed) still print and reflect it.
@Suite struct BoxedFieldReflectionTests {
    struct Settings: RemoteConfig, Codable, Equatable {
        var theme: String
    }

    @Test func aConfigUpdatePrintsItsConfigurationsNotTheirBoxes() {
        let update = ConfigUpdate(
            previous: Settings(theme: "light"), current: Settings(theme: "dark"), source: .live)
        let printed = String(describing: update)
        #expect(printed.contains("theme: \"light\""))
        #expect(printed.contains("theme: \"dark\""))
        #expect(!printed.contains("SDKEventBusCore.Boxed"))
        var dumped = ""
        dump(update, to: &dumped)
        #expect(dumped.contains("theme: \"dark\""))
        #expect(!dumped.contains("SDKEventBusCore.Boxed"))
    }

    @Test func aLifecycleConfigurationPrintsItsInitialConfiguration() {
        var configuration = LifecycleConfiguration<Settings>()
        configuration.initialConfig = Settings(theme: "sepia")
        let printed = String(describing: configuration)
        #expect(printed.contains("theme: \"sepia\""))
        #expect(!printed.contains("SDKEventBusCore.Boxed"))
    }
}
