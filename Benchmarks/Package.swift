// swift-tools-version: 6.1

// The benchmarks live in their own package so that the library itself stays dependency-free.
import PackageDescription

let package = Package(
    name: "SDKEventBusBenchmarks",
    platforms: [.macOS(.v13)],
    dependencies: [
        .package(name: "SDKEventBus", path: "../"),
        .package(url: "https://github.com/ordo-one/package-benchmark", from: "1.38.1", traits: ["MallocInterposer"]),
    ],
    targets: [
        .executableTarget(
            name: "DeliveryBenchmarks",
            dependencies: [
                .product(name: "Benchmark", package: "package-benchmark"),
                .product(name: "SDKEventBus", package: "SDKEventBus"),
                // SDKEVENTBUS_TIMELINE=1 records the buses measured (Recording.swift).
                .product(name: "SDKEventBusTimeline", package: "SDKEventBus"),
                // `waitForReadyWaiters`, to start timing once every `ready()` caller is suspended.
                .product(name: "SDKEventBusTesting", package: "SDKEventBus"),
                "FlagCatalog",
                "HeapStats",
            ],
            path: "Benchmarks/DeliveryBenchmarks",
            plugins: [.plugin(name: "BenchmarkPlugin", package: "package-benchmark")]
        ),
        // The heap in use (glibc's mallinfo2), for the memory-after-a-burst scenario: Swift's Glibc
        // module does not export it.
        .target(name: "HeapStats", path: "Support/HeapStats"),
        // A catalog declared in a module of its own, as another SDK would: the bus's generic code
        // is not specialized for it (issue #13 measures whether that costs anything).
        .target(
            name: "FlagCatalog",
            dependencies: [.product(name: "SDKEventBus", package: "SDKEventBus")],
            path: "Catalogs/FlagCatalog"
        ),
        // The delivery loop alone, without the harness: for profilers (valgrind, perf). Not under
        // Benchmarks/: the benchmark plugin runs every executable there as a benchmark, and this
        // one is not (the run failed on it with WaitPIDError).
        .executableTarget(
            name: "DeliveryProbe",
            dependencies: [
                .product(name: "SDKEventBus", package: "SDKEventBus"),
                .product(name: "SDKEventBusTimeline", package: "SDKEventBus"), "FlagCatalog",
            ],
            path: "Probes/DeliveryProbe"
        ),
    ],
    swiftLanguageModes: [.v6]
)
