// swift-tools-version: 6.2

import PackageDescription

let package = Package(
    name: "SDKEventBus",
    // The floors every product works from (Docs/Platforms.md; Scripts/check-availability.py proves
    // them in CI). The engine, the wire form, the configuration half, the app buses, the built-in
    // catalog and the testing libraries all run from here; only the `@Observable` status
    // (iOS 17) asks for more, with `@available`.
    platforms: [.iOS(.v13), .macOS(.v10_15), .tvOS(.v13), .watchOS(.v6)],
    products: [
        // The event engine, an SDK's event system and nothing else: catalog buses and emitters,
        // subscriptions, delivery contexts, replay, diagnostics. No configuration, JSON, HTTP or cache.
        .library(name: "SDKEventBusCore", targets: ["SDKEventBusCore"]),
        // Strict JSON with typed errors (`JSONDecodingError`, with the path and line of what was wrong)
        // and the JSON wire form of a catalog's payloads, for bridges (React Native, Flutter) and
        // analytics forwarding: `WireCodablePayload`, with canonical bytes.
        .library(name: "SDKEventBusWire", targets: ["SDKEventBusWire"]),
        // The configuration half, on the core and the wire form, as parts an SDK takes one by one: the
        // store and readiness, the lifecycle (refresh, retry, triggers, its clock), fetching over HTTP or
        // with the SDK's own function, the cache, the client that wires them all.
        .library(name: "SDKEventBusConfig", targets: ["SDKEventBusConfig"]),
        // App-level buses on the core's engine, for app code: events published and subscribed by type,
        // owner-bound and one-shot subscriptions, scoped buses, an all-events feed. An SDK never needs it.
        .library(name: "SDKEventBusAppEvents", targets: ["SDKEventBusAppEvents"]),
        // What a bus did, on the core alone: its timeline of fires, deliveries, diagnostics and
        // lifecycle steps, exported as a trace file (Perfetto, chrome://tracing) and sent to
        // Instruments as signposts. The core records; an SDK that never looks pays for none of this.
        .library(name: "SDKEventBusTimeline", targets: ["SDKEventBusTimeline"]),
        // The built-in catalog (SystemEvent, EventPayloadValue, ProjectConfig, EventBus, SDKClient,
        // …) on top of every product above, which it re-exports: `import SDKEventBus` gives all.
        .library(name: "SDKEventBus", targets: ["SDKEventBus"]),
        // What the tests of code on the core alone need, on the core alone: a recorder of a catalog's
        // events, bounded waits, the catalog conformance check. An events-only SDK's tests take this.
        .library(name: "SDKEventBusCoreTesting", targets: ["SDKEventBusCoreTesting"]),
        // Test doubles and test hooks for the tests of code that uses the bus, SDKs' and apps': a test
        // clock, a lifecycle recorder, a scripted fetch service, the wire form in the conformance
        // check, on top of every product above; it re-exports SDKEventBusCoreTesting, so one import
        // gives all.
        .library(name: "SDKEventBusTesting", targets: ["SDKEventBusTesting"]),
    ],
    targets: [
        // Two lock-free flag operations the delivery loop needs on every platform the package supports.
        // `Synchronization.Atomic` would do, but it requires iOS 18 / macOS 15.
        .target(name: "_SDKEventBusAtomics"),
        .target(name: "SDKEventBusCore", dependencies: ["_SDKEventBusAtomics"]),
        .target(name: "SDKEventBusWire", dependencies: ["SDKEventBusCore"]),
        // Ships its privacy manifest: the file cache reads a file's modification date, one of the APIs
        // App Store Connect asks a reason for (Scripts/check-privacy-manifest.py keeps it honest).
        .target(
            name: "SDKEventBusConfig", dependencies: ["SDKEventBusCore", "SDKEventBusWire"],
            resources: [.copy("Resources/PrivacyInfo.xcprivacy")]),
        .target(name: "SDKEventBusAppEvents", dependencies: ["SDKEventBusCore", "_SDKEventBusAtomics"]),
        .target(name: "SDKEventBusTimeline", dependencies: ["SDKEventBusCore"]),
        .target(
            name: "SDKEventBus",
            dependencies: ["SDKEventBusCore", "SDKEventBusWire", "SDKEventBusConfig", "SDKEventBusAppEvents"]),
        .target(name: "SDKEventBusCoreTesting", dependencies: ["SDKEventBusCore"]),
        .target(
            name: "SDKEventBusTesting",
            dependencies: [
                "SDKEventBusCore", "SDKEventBusWire", "SDKEventBusConfig", "SDKEventBus", "SDKEventBusCoreTesting",
            ]),
        // A tiny HTTP server on loopback for the integration tests and the demo; not a product.
        .target(name: "LoopbackHTTPServer"),
        .executableTarget(
            name: "SDKEventBusDemo",
            dependencies: ["SDKEventBus", "SDKEventBusTesting", "SDKEventBusTimeline", "LoopbackHTTPServer"]),
        .testTarget(
            name: "SDKEventBusTests",
            dependencies: [
                "SDKEventBusCore", "SDKEventBusWire", "SDKEventBusConfig", "SDKEventBusAppEvents", "SDKEventBus",
                "SDKEventBusTesting", "SDKEventBusTimeline", "LoopbackHTTPServer",
            ],
            resources: [.copy("Resources")]
        ),
        // A second SDK's catalog (a feature-flag SDK over the flagd format), written against the
        // core's public API only, running the guarantees the built-in catalog's tests pin.
        .testTarget(
            name: "CustomCatalogTests",
            dependencies: ["SDKEventBusConfig", "SDKEventBusTesting"],
            resources: [.copy("Resources")]
        ),
        // An SDK that declares the built-in catalog's names for its own types (SystemEvent,
        // EventBus, ConfigStore, ProjectConfig, …) on the core, and an app's tests that import it beside
        // the core and the testing library: they compile without one ambiguity.
        .target(name: "ClashSDK", dependencies: ["SDKEventBusConfig"], path: "Tests/ClashSDK"),
        .testTarget(name: "CoreClashTests", dependencies: ["ClashSDK", "SDKEventBusConfig", "SDKEventBusTesting"]),
        // An analytics SDK (its catalog and facade) on the events product alone, and its tests, which
        // take the core's testing part and nothing else: no configuration, wire form, built-in catalog
        // or app buses. Scripts/check-events-only.sh holds both to it.
        .target(name: "AnalyticsSDK", dependencies: ["SDKEventBusCore"], path: "Tests/AnalyticsSDK"),
        .testTarget(
            name: "EventsOnlySDKTests", dependencies: ["AnalyticsSDK", "SDKEventBusCore", "SDKEventBusCoreTesting"]),
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
