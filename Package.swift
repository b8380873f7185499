// swift-tools-version: 6.2

import PackageDescription

let package = Package(
    name: "SDKEventBus",
    platforms: [.iOS(.v16), .macOS(.v13), .tvOS(.v16), .watchOS(.v9)],
    products: [
        .library(name: "SDKEventBus", targets: ["SDKEventBus"]),
        // A test clock, an event recorder and a catalogue conformance check for the tests of code
        // that uses the bus: SDKs' and apps'. Depends on nothing but the library.
        .library(name: "SDKEventBusTesting", targets: ["SDKEventBusTesting"]),
    ],
    targets: [
        // Two lock-free flag operations the delivery loop needs on every platform the package supports.
        // `Synchronization.Atomic` would do, but it requires iOS 18 / macOS 15.
        .target(name: "_SDKEventBusAtomics"),
        .target(name: "SDKEventBus", dependencies: ["_SDKEventBusAtomics"]),
        .target(name: "SDKEventBusTesting", dependencies: ["SDKEventBus"]),
        // A tiny HTTP server on loopback for the integration tests and the demo; not a product.
        .target(name: "LoopbackHTTPServer"),
        .executableTarget(name: "SDKEventBusDemo", dependencies: ["SDKEventBus", "LoopbackHTTPServer"]),
        .testTarget(
            name: "SDKEventBusTests",
            dependencies: ["SDKEventBus", "SDKEventBusTesting", "LoopbackHTTPServer"],
            resources: [.copy("Resources")]
        ),
        // A second SDK's catalogue (a feature-flag SDK over the flagd format), written against the
        // public API only, running the guarantees the built-in catalogue's tests pin.
        .testTarget(
            name: "CustomCatalogueTests",
            dependencies: ["SDKEventBus", "SDKEventBusTesting"],
            resources: [.copy("Resources")]
        ),
    ],
    swiftLanguageModes: [.v6]
)

for target in package.targets where target.type != .system && target.name != "_SDKEventBusAtomics" {
    var settings = target.swiftSettings ?? []
    // https://github.com/swiftlang/swift-evolution/blob/main/proposals/0335-existential-any.md
    settings.append(.enableUpcomingFeature("ExistentialAny"))
    // https://github.com/swiftlang/swift-evolution/blob/main/proposals/0444-member-import-visibility.md
    settings.append(.enableUpcomingFeature("MemberImportVisibility"))
    // https://github.com/swiftlang/swift-evolution/blob/main/proposals/0409-access-level-on-imports.md
    settings.append(.enableUpcomingFeature("InternalImportsByDefault"))
    // https://github.com/swiftlang/swift-evolution/blob/main/proposals/0461-async-function-isolation.md
    // A nonisolated async function runs on its caller's actor: firing from the main actor costs no hop.
    settings.append(.enableUpcomingFeature("NonisolatedNonsendingByDefault"))
    target.swiftSettings = settings
}
