import SDKEventBusConfig
import SDKEventBusTesting

extension LifecycleConfiguration {
    /// The configuration with every wait of the lifecycle on `clock`.
    func on(_ clock: TestClock) -> Self {
        var configuration = self
        configuration.clock = clock
        return configuration
    }
}
